// One crash point counted and tried: the operation run under strace to count its mutating calls, then
// run again with SIGKILL or an injected error at one of them, the invariants checked, the operation
// retried and convergence checked; a point whose call number drifted is tried again.
import { ROOT, type CallOutcome } from '@occ-ssh/test-support';
import { helperOf, runSteps } from '../host/collector.js';
import type { MutatingArgs, MutatingOperation } from '../host-state/expectations.js';
import type { HostLink } from '../host/ssh.js';
import { runTrial } from '../trials/trial.js';
import { ATTEMPTS, type CrashRecord, type OperationCount } from './records.js';
import { helperStep, scenario, setUp, traced } from './scenarios.js';
import { hitOf, pointsOf, type Hit, type Injection, type Lane, type Point } from './strace-log.js';

/** A lane's host, the cleanup the last scenario left pending, and where its records go. */
export interface LaneState {
  link: HostLink;
  pending: MutatingArgs | undefined;
  tag: () => string;
  records: CrashRecord[];
  onRecord: (record: CrashRecord) => void;
}

/** The operation run once under strace, uninterrupted: its mutating calls, and its children's. */
export async function countPoints(state: LaneState, operation: MutatingOperation, lane: Lane): Promise<OperationCount> {
  const { link } = state;
  const s = scenario(operation, state.tag());
  await setUp(link, state.pending, s.setup);
  state.pending = s.cleanup;
  const { outcome, log } = await traced(link, s.op, lane);
  if (!outcome.line?.ok)
    throw new Error(`crash points: counting ${operation} failed: ${outcome.line && !outcome.line.ok ? outcome.line.error.message : `no result line (ssh exit ${String(outcome.code)})`}`);
  const children: Record<string, number> = {};
  for (const program of log.programs.values()) children[program] ??= 0;
  const points = pointsOf(log, lane, ROOT);
  for (const point of pointsOf(log, 'children', ROOT)) children[point.program] = (children[point.program] ?? 0) + 1;
  return { operation, lane, points, children };
}

/** One injected run at call number `when` on a fresh scenario, its retry, and what the injection hit. */
async function tryOnce(state: LaneState, operation: MutatingOperation, lane: Lane, point: Point, injection: Injection, when: number, attempt: number): Promise<CrashRecord> {
  const { link } = state;
  const s = scenario(operation, state.tag());
  const before = await setUp(link, state.pending, s.setup);
  state.pending = s.cleanup;
  let hit: Hit | undefined;
  let first: CallOutcome | undefined;
  const at = { ...point, when };
  const { record } = await runTrial({
    link,
    step: s.op,
    before,
    fault: `${injection.kind === 'kill' ? 'SIGKILL' : injection.errno} at ${point.syscall}#${when}`,
    atMs: 0,
    measuredMs: 0,
    readers: injection.kind === 'error',
    tempsPendingAfterFault: injection.kind === 'kill',
    interrupted: async () => {
      const run = await traced(link, s.op, lane, { point: at, injection });
      hit = hitOf(run.log, point.syscall, injection, ROOT);
      first = run.outcome;
      return run.outcome;
    },
  });
  if (s.then) {
    const [next] = await runSteps(link, [helperStep(link, s.then)]);
    const line = helperOf(next).line;
    if (!line?.ok) record.problems.push(`${s.then.operation} after the retry failed: ${line && !line.ok ? `${line.error.code}: ${line.error.message}` : 'no result line'}`);
  }
  const exact = hit !== undefined && hit.mutating && hit.program === point.program && hit.ordinal === point.ordinal;
  const crash: CrashRecord = {
    ...record,
    lane: injection.kind === 'kill' ? lane : 'errors',
    point,
    ...(hit ? { hit } : {}),
    exact,
    attempt,
    injection: injection.kind === 'kill' ? 'SIGKILL' : injection.errno,
  };
  if (injection.kind === 'error') {
    if (hit && !hit.mutating) crash.offTarget = true;
    const line = (first as CallOutcome | undefined)?.line;
    crash.firstCode = !line ? 'no-line' : line.ok ? 'none' : line.error.code;
    if (exact && (!line || line.ok)) crash.problems.push(!line ? 'the operation printed no result line after the injected error' : 'the operation succeeded although a write, fsync or rename failed');
  }
  return crash;
}

/** One point: fresh scenario, the injected run, invariants, retry; tried again if the number drifted. */
export async function tryPoint(state: LaneState, operation: MutatingOperation, lane: Lane, point: Point, injection: Injection): Promise<void> {
  let when = point.when;
  // An error that drifts onto a socket or pipe write can stall the helper until the timeout: fewer tries.
  const attempts = ATTEMPTS[injection.kind === 'error' ? 'errors' : lane];
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const crash = await tryOnce(state, operation, lane, point, injection, when, attempt);
    state.records.push(crash);
    state.onRecord(crash);
    if (crash.exact) return;
    // Calls of the same kind came and went differently this time (heartbeats on the session
    // socket, /etc/localtime opened on first use): move the number by the spacing the count saw
    // between the call hit and the one wanted; past an extra call, one on; past the end, one back.
    const hit = crash.hit;
    if (!hit) {
      if (when <= 1) return;
      when -= 1;
      continue;
    }
    const spacing = (point.whens[point.ordinal - 1] ?? point.when) - (point.whens[hit.ordinal - 1] ?? point.when);
    when = Math.max(1, when + (hit.mutating ? spacing : Math.max(1, spacing + 1)));
  }
}
