// What an Agent's UID still holds on the host outside its tree, cleared before the UID is freed:
// `useradd --system` hands a freed UID to the next account, which would own whatever was left.
import { setTimeout as sleep } from 'node:timers/promises';
import { ComputeError } from '@occ-ssh/protocol';
import { findOwnedArgv, ipcrmArgv } from '../run/commands.js';
import { CommandNotRun, PROGRAM_ENV, mustRun, type HostRunner } from '../run/system.js';

/**
 * The host's world-writable directories (each may be its own mount). The gateway's sandbox leaves it
 * none of them (its /tmp and /var/tmp are private and go with its unit, /dev/shm is an empty read-only
 * tmpfs, /run is read-only, its IPC namespace private); these are swept anyway, the second line behind
 * the sandbox and the as-account children that follow no link.
 */
const SHARED_DIRS = ['/tmp', '/var/tmp', '/dev/shm', '/dev/mqueue', '/run/lock'] as const;

/** How long processes of the UID get to vanish after SIGKILL (one in uninterruptible sleep may take a moment). */
const PROCESS_GONE_MS = 5000;
/** Security: each sweep's own bound; a sweep cut at it leaves the UID refused, to retry. */
const SWEEP_MS = 60_000;

/**
 * Security: every process of the UID killed (SIGKILL reaches a stopped one too), its SysV IPC objects
 * removed, and its files in the shared directories deleted, as root, never through a link, never into
 * another mount. Runs once the Agent's units are stopped, so nothing of the UID starts again meanwhile.
 * Throws a retryable error naming what remains, so the UID is never freed while it holds anything.
 */
export async function clearUid(runner: HostRunner, uid: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + PROCESS_GONE_MS;
  for (let { pids } = runner.holdersOf(uid); pids.length > 0 && Date.now() < deadline; { pids } = runner.holdersOf(uid)) {
    for (const pid of pids) runner.killProcess(pid);
    await sleep(50);
  }
  for (const { kind, id } of runner.holdersOf(uid).ipc) await mustRun(runner, ipcrmArgv(kind, id));
  // Its exit code says little (a directory the host lacks, one left non-empty): what remains is looked for next.
  await runner.runChild(findOwnedArgv(SHARED_DIRS, uid, 'delete'), { env: PROGRAM_ENV, cwd: '/', output: false, signal, timeoutMs: SWEEP_MS }).catch((error: unknown) => {
    if (!(error instanceof CommandNotRun)) throw error;
  });
  await refuseRemains(runner, uid, signal);
}

/** What the UID still holds after the sweep, named in a retryable error. */
async function refuseRemains(runner: HostRunner, uid: number, signal: AbortSignal): Promise<void> {
  const remains: string[] = [];
  const { pids, ipc } = runner.holdersOf(uid);
  if (pids.length > 0) remains.push(`processes ${pids.slice(0, 5).join(', ')}`);
  if (ipc.length > 0) remains.push(`IPC objects ${ipc.map(({ kind, id }) => `${kind} ${id}`).join(', ')}`);
  const found = await runner.runChild(findOwnedArgv(SHARED_DIRS, uid, 'first'), { env: PROGRAM_ENV, cwd: '/', output: true, signal, timeoutMs: SWEEP_MS }).catch((error: unknown) => {
    if (!(error instanceof CommandNotRun)) throw error;
    return { code: 1, stdout: `${SHARED_DIRS.join(' ')} (not searched in time)` };
  });
  const first = found.stdout.split('\n')[0]?.trim();
  if (first) remains.push(`a file at ${first.replace(/[^\x21-\x7e]/g, '?').slice(0, 200)}`);
  if (remains.length > 0) throw new ComputeError('host-command', `UID ${uid} still holds ${remains.join('; ')}; its account is kept until nothing of it remains (retry)`);
}
