// Sections crash-points and injected-errors: each mutating operation, run under strace on a host of
// the strace variant, is first counted (its mutating system calls), then killed with SIGKILL at each
// of them in turn (helper only, or inside useradd/userdel), or handed ENOSPC/EIO there;
// every time the invariants are checked, the operation retried, and convergence checked.
import { laneJournals } from '../secrets/lane-documents.js';
import type { Corpus } from '../secrets/sightings.js';
import { installSetupGateway } from '../host/setup-gateway.js';
import type { HostLink } from '../host/ssh.js';
import { countPoints, tryPoint, type LaneState } from './point-trials.js';
import type { MutatingOperation } from '../host-state/expectations.js';
import { ERROR_FOR, operationQueue, type CrashPlan, type CrashRecord, type OperationCount } from './records.js';
import { scenario, setUp } from './scenarios.js';

export interface CrashLaneResult {
  counts: OperationCount[];
  records: CrashRecord[];
  /** What the lane kept that its document sentinel must not be in: audit lines and the journal. */
  corpora: Corpus[];
}

/** The points a run tries: every `step`-th, starting from the first. */
function sample<T>(points: readonly T[], step: number): T[] {
  return points.filter((_, index) => index % step === 0);
}

/**
 * Runs the crash-point lanes (and, with `errors`, the injected-error lane) over the plan's
 * operations on one host of the strace variant; hosts given the same `take` share the operations.
 */
export async function crashLane(
  link: HostLink,
  plan: CrashPlan,
  options: { errors: boolean; crash: boolean },
  progress: (line: string) => void,
  onRecord: (record: CrashRecord) => void,
  take: () => MutatingOperation | undefined = operationQueue(plan.operations),
): Promise<CrashLaneResult> {
  const counts: OperationCount[] = [];
  let serial = 0;
  const state: LaneState = { link, pending: undefined, tag: () => `cp${process.pid % 1000}n${++serial}`, records: [], onRecord };

  link.useGateway(await installSetupGateway(link));
  // Warm-up: the first operation on a host creates the root and its top directories; every point
  // is counted and tried on a host where they already exist.
  const warm = scenario('ensure-namespace', state.tag());
  await setUp(link, undefined, [warm.op]);
  state.pending = warm.cleanup;

  for (let operation = take(); operation; operation = take()) {
    for (const lane of plan.lanes) {
      const counted = await countPoints(state, operation, lane);
      counts.push(counted);
      progress(`crash points: ${operation} (${lane} lane) makes ${counted.points.length} mutating calls${lane === 'children' ? ` in ${JSON.stringify(counted.children)}` : ''}`);
      if (options.crash) for (const point of sample(counted.points, plan.step)) await tryPoint(state, operation, lane, point, { kind: 'kill' });
      if (options.errors && lane === 'helper') {
        const erring = counted.points.filter((point) => ERROR_FOR[point.syscall]);
        for (const point of sample(erring, plan.step)) await tryPoint(state, operation, lane, point, ERROR_FOR[point.syscall]!);
      }
    }
  }
  if (state.pending) await setUp(link, state.pending, []);
  return { counts, records: state.records, corpora: await laneJournals(link, 'crash lane') };
}
