// Sections crash-points and injected-errors: each mutating operation, run under strace on a host of
// the strace variant, is first counted (its mutating system calls), then killed with SIGKILL at each
// of them in turn (helper only, or inside useradd/groupadd/userdel), or handed ENOSPC/EIO there;
// every time the invariants are checked, the operation retried, and convergence checked.
import { accountName, nsHash, unitName } from '@occ-ssh/markers';
import { assertNever, encodeArgument, MUTATING_OPERATIONS } from '@occ-ssh/protocol';
import { remoteCommand } from '@occ-ssh/ssh-client';
import { helperOf, runSteps, listingOf, type Step } from '../host/collector.js';
import type { MutatingArgs, MutatingOperation } from '../host-state/expectations.js';
import type { Listing } from '../host/listing.js';
import { call, envelopeFor, ROOT, UNIT_DIR, type CallOutcome } from '@occ-ssh/test-support';
import { activateArgs, activateSetUp, ownerOf, prepareArgs, RUNTIME_USER, setupArgs, siblingAgentId, siblingOf } from '../host/fixture-args.js';
import { LANE_DOCUMENT_SENTINEL, laneJournals } from '../secrets/secrets.js';
import type { Corpus } from '../secrets/sightings.js';
import { installSetupGateway } from '../host/setup-gateway.js';
import type { HostLink } from '../host/ssh.js';
import { hitOf, parseLog, pointsOf, straceArgv, type Hit, type Injection, type Lane, type ParsedLog, type Point } from './strace-log.js';
import { runTrial, type TrialRecord } from '../trials/trial.js';

/** Every mutating operation; setup-workspace runs native setup through the lane's setup gateway (setup-gateway.ts). */
export const CRASH_OPERATIONS: readonly MutatingOperation[] = MUTATING_OPERATIONS;

/** Which injected error each system call gets in the injected-error lane: a full disk for writes and syncs, an I/O error for renames. */
const ERROR_FOR: Record<string, Injection> = Object.fromEntries([
  ...['write', 'pwrite64', 'writev', 'fsync', 'fdatasync'].map((call) => [call, { kind: 'error', errno: 'ENOSPC' }] as const),
  ...['rename', 'renameat', 'renameat2'].map((call) => [call, { kind: 'error', errno: 'EIO' }] as const),
]);

/**
 * How often a helper point is tried again when extra calls (heartbeats on the session socket,
 * lazily opened files) moved its number; a child's numbering does not drift, so it is tried once.
 */
const ATTEMPTS: Record<Lane | 'errors', number> = { helper: 5, children: 1, errors: 3 };

export interface CrashPlan {
  /** Every `step`-th point (1: all of them), the same ones on every run. */
  step: number;
  lanes: readonly Lane[];
  operations: readonly MutatingOperation[];
}

export interface CrashRecord extends TrialRecord {
  lane: Lane | 'errors';
  point: Point;
  /** The call the injection really hit (undefined: the operation ended before it). */
  hit?: Hit;
  /** The hit was the intended call (same program, system call and ordinal). */
  exact: boolean;
  attempt: number;
  injection: string;
  /** Errors lane: the first call's result code (or `none` for a success, `no-line` for a crash). */
  firstCode?: string;
  /**
   * Errors lane: the number drifted onto a socket, pipe or eventfd write, which no disk fault
   * can fail; such a trial is kept and listed but not judged.
   */
  offTarget?: boolean;
}

export interface OperationCount {
  operation: MutatingOperation;
  lane: Lane;
  points: Point[];
  /** Programs that ran as children, and how many mutating calls each made on shadow's files. */
  children: Record<string, number>;
}

/** The host state an operation starts from, in a Namespace of its own, and how to clear it afterwards. */
function scenario(operation: MutatingOperation, tag: string): { setup: MutatingArgs[]; op: MutatingArgs; cleanup: MutatingArgs; then?: MutatingArgs } {
  const owner = ownerOf(tag);
  const p1 = prepareArgs(owner, 1, { readyAfterMs: 0 });
  const ensure: MutatingArgs = { operation: 'ensure-namespace', args: { namespace: owner.namespace } };
  const prepare: MutatingArgs = { operation: 'prepare-revision', args: p1 };
  const activate: MutatingArgs = { operation: 'activate-revision', args: activateArgs(p1) };
  const target = { owner, revision: p1.revision };
  const cleanup: MutatingArgs = { operation: 'delete-namespace', args: { namespace: owner.namespace } };
  switch (operation) {
    case 'ensure-namespace':
      return { setup: [], op: ensure, cleanup };
    case 'prepare-revision':
      return { setup: [ensure], op: prepare, cleanup };
    case 'activate-revision':
      return { setup: [ensure, prepare], op: activate, cleanup };
    case 'stop-revision':
      return { setup: [ensure, prepare, activate], op: { operation: 'stop-revision', args: target }, cleanup };
    case 'retire-revision':
      return { setup: [ensure, prepare, activate], op: { operation: 'retire-revision', args: target }, cleanup };
    case 'delete-agent': {
      // A running sibling in the same Namespace: its account, unit, directory and port must come through whole.
      const sibling = prepareArgs(siblingOf(owner), 1, { readyAfterMs: 0 });
      const siblingSetup: MutatingArgs[] = [
        { operation: 'prepare-revision', args: sibling },
        { operation: 'activate-revision', args: activateArgs(sibling) },
      ];
      return { setup: [ensure, prepare, activate, ...siblingSetup], op: { operation: 'delete-agent', args: { owner } }, cleanup };
    }
    case 'delete-namespace':
      return { setup: [ensure, prepare, activate], op: cleanup, cleanup };
    case 'setup-workspace': {
      // Then activation, which starts the gateway only once the marker records exactly this setup.
      const setup = setupArgs(p1, LANE_DOCUMENT_SENTINEL);
      return { setup: [ensure, prepare], op: { operation: 'setup-workspace', args: setup }, cleanup, then: { operation: 'activate-revision', args: activateSetUp(p1, setup) } };
    }
    default:
      return assertNever(operation, 'mutating operation');
  }
}

const helperStep = (link: HostLink, step: MutatingArgs): Step => ({ helper: encodeArgument(envelopeFor(link, step.operation, step.args as never)) });

let logCounter = 0;
/** Every operation here ends within seconds; a traced call still running after this is stuck. */
const TRACED_TIMEOUT_MS = 30_000;

/** Runs one operation through a fresh client with the helper under strace; returns the outcome and the parsed log. */
async function traced(link: HostLink, step: MutatingArgs, lane: Lane, inject?: { point: Point; injection: Injection }): Promise<{ outcome: CallOutcome; log: ParsedLog }> {
  const logPath = `/tmp/occ-chaos-strace-${process.pid}-${++logCounter}.log`;
  const outcome = await call(link, step.operation, step.args as never, { wrap: straceArgv(lane, logPath, inject), timeoutMs: TRACED_TIMEOUT_MS });
  // An error injected into a socket or eventfd write (the number drifted) can leave the helper
  // waiting forever: end that strace and its tracee, found by this call's own log path.
  const reap = 'for p in $(pgrep -f -- "-o $1 "); do pkill -KILL -P "$p"; kill -KILL "$p"; done 2>/dev/null; cat "$1"; rm -f "$1"';
  const text = await link.run(['sh', '-c', reap, 'sh', logPath]);
  return { outcome, log: parseLog(text) };
}

/**
 * Removes a scenario's Namespace, account and unit by hand, for when the helper itself refuses to
 * delete what a crash left (that refusal is already recorded as a non-converged trial).
 */
function scrubStep(cleanup: MutatingArgs): Step {
  const { namespace } = cleanup.args as { namespace: { id: string } };
  const agentId = namespace.id.replace(/^ns-/, 'agent-');
  // The scenario's Agent and the sibling the delete-agent scenario adds, as unit/account pairs.
  const pairs = [agentId, siblingAgentId(agentId)].flatMap((id) => [unitName(id), accountName(RUNTIME_USER, namespace.id, id)]);
  const script =
    'root=$1 ns=$2 dir=$3; shift 3; while [ $# -gt 0 ]; do systemctl disable --now "$1" 2>/dev/null; rm -f "$dir/$1"; userdel "$2" 2>/dev/null; groupdel "$2" 2>/dev/null; rm -f "$root/accounts/$2.json"; shift 2; done; systemctl daemon-reload; rm -rf "$root/namespaces/$ns"; true';
  return { sh: remoteCommand(['sh', '-c', script, 'scrub', ROOT, nsHash(namespace.id), UNIT_DIR, ...pairs]) };
}

/** Clears what came before and sets up the scenario, in one round trip; returns the listing to compare against. */
async function setUp(link: HostLink, pending: MutatingArgs | undefined, setup: MutatingArgs[]): Promise<Listing> {
  if (pending) {
    const [cleared] = await runSteps(link, [helperStep(link, pending)]);
    if (!helperOf(cleared).line?.ok) await runSteps(link, [scrubStep(pending)]);
  }
  const steps = setup;
  const results = await runSteps(link, [...steps.map((step) => helperStep(link, step)), { collect: {} }]);
  for (const [index, step] of steps.entries()) {
    const line = helperOf(results[index]).line;
    if (!line?.ok) throw new Error(`crash points: setup ${step.operation} failed: ${line && !line.ok ? `${line.error.code}: ${line.error.message}` : 'no result line'}`);
  }
  return listingOf(results[results.length - 1]);
}

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
 * operations on one host of the strace variant.
 */
export async function crashLane(
  link: HostLink,
  plan: CrashPlan,
  options: { errors: boolean; crash: boolean },
  progress: (line: string) => void,
  onRecord: (record: CrashRecord) => void,
): Promise<CrashLaneResult> {
  const counts: OperationCount[] = [];
  const records: CrashRecord[] = [];
  let pending: MutatingArgs | undefined;
  let serial = 0;
  const tag = () => `cp${process.pid % 1000}n${++serial}`;

  const count = async (operation: MutatingOperation, lane: Lane): Promise<OperationCount> => {
    const s = scenario(operation, tag());
    await setUp(link, pending, s.setup);
    pending = s.cleanup;
    const { outcome, log } = await traced(link, s.op, lane);
    if (!outcome.line?.ok)
      throw new Error(`crash points: counting ${operation} failed: ${outcome.line && !outcome.line.ok ? outcome.line.error.message : `no result line (ssh exit ${String(outcome.code)})`}`);
    const children: Record<string, number> = {};
    for (const program of log.programs.values()) children[program] ??= 0;
    const points = pointsOf(log, lane, ROOT);
    for (const point of pointsOf(log, 'children', ROOT)) children[point.program] = (children[point.program] ?? 0) + 1;
    return { operation, lane, points, children };
  };

  /** One point: fresh scenario, the injected run, invariants, retry; tried again if the number drifted. */
  const tryPoint = async (operation: MutatingOperation, lane: Lane, point: Point, injection: Injection): Promise<void> => {
    let when = point.when;
    // An error that drifts onto a socket or pipe write can stall the helper until the timeout: fewer tries.
    const attempts = ATTEMPTS[injection.kind === 'error' ? 'errors' : lane];
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      const s = scenario(operation, tag());
      const before = await setUp(link, pending, s.setup);
      pending = s.cleanup;
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
        if (exact && (!line || line.ok))
          crash.problems.push(!line ? 'the operation printed no result line after the injected error' : 'the operation succeeded although a write, fsync or rename failed');
      }
      records.push(crash);
      onRecord(crash);
      if (exact) return;
      // Calls of the same kind came and went differently this time (heartbeats on the session
      // socket, /etc/localtime opened on first use): move the number by the spacing the count saw
      // between the call hit and the one wanted; past an extra call, one on; past the end, one back.
      if (!hit) {
        if (when <= 1) return;
        when -= 1;
        continue;
      }
      const spacing = (point.whens[point.ordinal - 1] ?? point.when) - (point.whens[hit.ordinal - 1] ?? point.when);
      when = Math.max(1, when + (hit.mutating ? spacing : Math.max(1, spacing + 1)));
    }
  };

  link.useGateway(await installSetupGateway(link));
  // Warm-up: the first operation on a host creates the root and its top directories; every point
  // is counted and tried on a host where they already exist.
  const warm = scenario('ensure-namespace', tag());
  await setUp(link, undefined, [warm.op]);
  pending = warm.cleanup;

  for (const operation of plan.operations) {
    for (const lane of plan.lanes) {
      const counted = await count(operation, lane);
      counts.push(counted);
      progress(`crash points: ${operation} (${lane} lane) makes ${counted.points.length} mutating calls${lane === 'children' ? ` in ${JSON.stringify(counted.children)}` : ''}`);
      if (options.crash) for (const point of sample(counted.points, plan.step)) await tryPoint(operation, lane, point, { kind: 'kill' });
      if (options.errors && lane === 'helper') {
        const erring = counted.points.filter((point) => ERROR_FOR[point.syscall]);
        for (const point of sample(erring, plan.step)) await tryPoint(operation, lane, point, ERROR_FOR[point.syscall]!);
      }
    }
  }
  if (pending) await setUp(link, pending, []);
  return { counts, records, corpora: await laneJournals(link, 'crash lane') };
}

/** What one operation (in one lane) showed: the row of the reliability table. */
export interface CrashRow {
  operation: string;
  lane: string;
  points: number;
  tried: number;
  exact: number;
  trials: number;
  violations: number;
  nonConverged: number;
  slowestRetryMs: number;
  /** Errors lane: first-call result codes. */
  codes?: Record<string, number>;
}

const pointKey = (point: Point) => `${point.program} ${point.syscall} ${point.path ?? ''} #${point.ordinal}`;

export function crashRows(counts: readonly OperationCount[], records: readonly CrashRecord[], step: number): CrashRow[] {
  const rows: CrashRow[] = [];
  // Only the lanes this section ran (the injected-error section counts in the helper lane but kills nowhere).
  const lanes = (['helper', 'children', 'errors'] as const).filter((lane) => records.some((record) => record.lane === lane));
  for (const lane of lanes) {
    for (const counted of counts.filter((c) => (lane === 'errors' ? c.lane === 'helper' : c.lane === lane))) {
      const mine = records.filter((r) => r.lane === lane && r.operation === counted.operation);
      const points = lane === 'errors' ? counted.points.filter((p) => ERROR_FOR[p.syscall]).length : counted.points.length;
      const exactPoints = new Set(mine.filter((r) => r.exact).map((r) => pointKey(r.point)));
      const row: CrashRow = {
        operation: counted.operation,
        lane,
        points,
        tried: Math.ceil(points / step),
        exact: exactPoints.size,
        trials: mine.length,
        violations: mine.filter((r) => !r.offTarget && r.violations.length > 0).length,
        nonConverged: mine.filter((r) => !r.offTarget && r.problems.length > 0).length,
        slowestRetryMs: Math.max(0, ...mine.map((r) => r.retry.ms)),
      };
      if (lane === 'errors') {
        row.codes = {};
        for (const r of mine) row.codes[r.firstCode ?? '?'] = (row.codes[r.firstCode ?? '?'] ?? 0) + 1;
      }
      rows.push(row);
    }
  }
  return rows;
}
