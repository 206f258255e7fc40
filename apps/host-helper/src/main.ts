// Entry of the host helper: `node - <base64-argument>`, with this file on stdin behind the
// prelude that carries the sealed operation (see @occ-ssh/helper-call sealed.ts).
import { openSealed, takeSealed } from '@occ-ssh/helper-call';
import { canonicalHash } from '@occ-ssh/markers';
import { ComputeError, PROTOCOL_VERSION, decodeArgument, formatLine, toComputeError, type Envelope, type HelperTimings, type ResultLine } from '@occ-ssh/protocol';
import { audit } from './audit/audit.js';
import { dispatch } from './dispatch.js';
import { Session } from './context/session.js';
import { hostRunner } from './run/system.js';
import { HELPER_VERSION } from './audit/version.js';

async function main(argument: string | undefined, sealed: unknown): Promise<number> {
  const session = new Session();
  const timings: Partial<HelperTimings> = {};
  let op: Envelope | undefined;
  let line: ResultLine;
  const base = () => ({
    type: 'result' as const,
    protocolVersion: PROTOCOL_VERSION,
    helperVersion: HELPER_VERSION,
    operation: op?.operation ?? ('unknown' as const),
    ...(op ? { requestId: op.requestId } : {}),
    timings: { ...timings, totalMs: Date.now() - session.startedAt },
  });
  session.start();
  try {
    op = decodeArgument(openSealed(argument, sealed));
    if (canonicalHash(op.runtime) !== op.configurationHash) {
      throw new ComputeError('configuration', 'runtime settings do not match their configuration hash');
    }
    const result = await Promise.race([dispatch({ runtime: op.runtime, session, runner: hostRunner }, op, timings), stopped(session)]);
    line = { ...base(), ok: true, result };
  } catch (error) {
    const failure = toComputeError(error);
    const message = failure.code === 'internal' ? `unexpected helper failure: ${describe(error)}` : failure.message;
    line = { ...base(), ok: false, error: { code: failure.code, message: message.slice(0, 2000), ...(failure.details.path ? { path: failure.details.path } : {}) } };
  }
  if (op) await audit(hostRunner, op, line.ok ? 'ok' : line.error.code, Date.now() - session.startedAt, session.changes, session.plans);
  session.stop();
  // Bounded: a closed session may never acknowledge the write.
  await Promise.race([new Promise<void>((resolve) => process.stdout.write(formatLine(line), () => resolve())), new Promise<void>((resolve) => setTimeout(resolve, 1000))]);
  return line.ok ? 0 : 1;
}

/** How long a step already running (a host command) may go on once the session is closed or out of time. */
const STOP_GRACE_MS = 2000;

/**
 * Rejects with the session's reason a short grace after it ends. The waits end at once on their own;
 * this bounds a host command in flight, so the helper exits (releasing the lock) as a kill would,
 * which every step is built to survive. A job already handed to systemd completes on the host.
 */
function stopped(session: Session): Promise<never> {
  return new Promise((_, reject) => {
    const fire = () => setTimeout(() => reject(session.signal.reason as Error), STOP_GRACE_MS).unref();
    if (session.signal.aborted) fire();
    else session.signal.addEventListener('abort', fire, { once: true });
  });
}

/** Names the kind of an unexpected error (an errno code or class) without echoing data. */
function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const syscall = (error as NodeJS.ErrnoException | undefined)?.syscall;
  const path = (error as NodeJS.ErrnoException | undefined)?.path;
  if (typeof code === 'string') return [code, syscall, path].filter(Boolean).join(' ');
  return error instanceof Error ? error.name : typeof error;
}

main(process.argv[2], takeSealed()).then(
  (code) => process.exit(code),
  () => process.exit(70),
);
