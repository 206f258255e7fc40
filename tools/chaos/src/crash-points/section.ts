// crash-points and injected-errors: strace kills the helper or its children at a counted system
// call (SIGKILL), or fails that call (ENOSPC, EIO), on a host of the strace variant each.
import { crashLane } from './crash-points.js';
import { crashRows, type CrashRow } from './crash-rows.js';
import { CRASH_OPERATIONS, operationQueue, type CrashRecord, type OperationCount } from './records.js';
import { MAX_LISTED } from '../trials/trial-summary.js';
import { failedTrial, seconds, trialGoals, type Section } from '../campaign/section.js';

/** The crash-points or injected-errors section: one row per operation and lane, and the trials that failed. */
export interface CrashSummary {
  /** Every `step`-th point was tried. */
  step: number;
  rows: CrashRow[];
  trials: number;
  /** Injected errors whose number drifted onto a socket or eventfd write: listed, not judged. */
  offTarget: number;
  violations: number;
  nonConverged: number;
  /** Points that were hit exactly (the intended call), of the points tried. */
  exact: number;
  tried: number;
  /** Each operation's points as counted, by lane (`program syscall path`), and what its children did. */
  counted: { operation: string; lane: string; points: string[]; children: Record<string, number> }[];
  failures: CrashRecord[];
  durationMs: number;
}

export function summarizeCrashes(counts: readonly OperationCount[], records: readonly CrashRecord[], step: number, durationMs: number): CrashSummary {
  const rows = crashRows(counts, records, step);
  const judged = records.filter((record) => !record.offTarget);
  const failing = judged.filter((record) => record.violations.length > 0 || record.problems.length > 0);
  return {
    step,
    rows,
    trials: records.length,
    offTarget: records.length - judged.length,
    violations: judged.filter((record) => record.violations.length > 0).length,
    nonConverged: judged.filter((record) => record.problems.length > 0).length,
    exact: rows.reduce((sum, row) => sum + row.exact, 0),
    tried: rows.reduce((sum, row) => sum + row.tried, 0),
    counted: counts.map((c) => ({ operation: c.operation, lane: c.lane, points: c.points.map((p) => `${p.program} ${p.what}`), children: c.children })),
    failures: failing.slice(0, MAX_LISTED),
    durationMs,
  };
}

function crashSection<Name extends 'crash-points' | 'injected-errors', Key extends string>(name: Name, key: Key, host: string, label: string): Section<Name, Key, CrashSummary> {
  const crash = name === 'crash-points';
  // The lanes as judged: the injected-error lane counts the helper's points under the name `errors`.
  const judged = crash ? ['helper', 'children'] : ['errors'];
  return {
    name,
    key,
    // Further hosts of a section are named after its first: c, c1, c2.
    lanes: (sizes) => Array.from({ length: crash ? sizes.crashHosts : 1 }, (_, i) => ({ host: i === 0 ? host : `${host}${i}`, variant: 'strace' as const, order: 0 })),
    run({ sizes, progress, laneCorpora }) {
      const step = sizes.crashPointStep;
      const plan = { step, lanes: crash ? (['helper', 'children'] as const) : (['helper'] as const), operations: CRASH_OPERATIONS };
      // One queue for every host of the section: each takes the next operation left when it is done.
      const take = operationQueue(plan.operations);
      const counts: OperationCount[] = [];
      const records: CrashRecord[] = [];
      // From the first host's start to the last one's end, as one host's part was timed.
      let started: number | undefined;
      let ended: number | undefined;
      const onRecord = (record: CrashRecord) => {
        const bad = failedTrial(record);
        if (bad || !record.exact)
          progress(
            `${name}: ${record.operation} (${record.lane}) ${record.injection} at ${record.point.program} ${record.point.what}: hit ${record.hit ? `${record.hit.program} ${record.hit.what}` : 'nothing'}${bad}`,
          );
      };
      return {
        async part(_index, link) {
          started ??= Date.now();
          const lane = await crashLane(link, plan, { crash, errors: !crash }, progress, onRecord, take);
          counts.push(...lane.counts);
          records.push(...lane.records);
          laneCorpora.push(...lane.corpora);
          ended = Date.now();
        },
        // The rows in the table's order, whichever host counted each operation.
        summarize: () => (started === undefined || ended === undefined ? undefined : summarizeCrashes([...counts].sort(byOperation), records, step, ended - started)),
      };
    },
    targets(summary) {
      const rowsOf = (lane: string) => summary.rows.filter((row) => row.lane === lane);
      // An operation with no points in a lane (no child touches shadow's files while stopping) has nothing to cut there.
      const absent = judged.flatMap((lane) =>
        CRASH_OPERATIONS.filter((op) => !rowsOf(lane).some((row) => row.operation === op && (row.trials > 0 || (row.points === 0 && lane === 'children')))).map((op) => `${op} (${lane})`),
      );
      const cut = {
        name: `every mutating operation counted and cut${judged.length > 1 ? ' in both lanes' : ''}`,
        met: absent.length === 0,
        detail: absent.length ? `not cut: ${absent.join(', ')}` : summary.rows.map((row) => `${row.operation}/${row.lane} ${row.trials}`).join(', '),
      };
      return [cut, ...trialGoals(summary)];
    },
    counts: (c) => ({ trials: c.trials, violations: c.violations, nonConverged: c.nonConverged }),
    lines: (c) => [
      `  ${label}: ${c.trials} trials at ${c.exact}/${c.tried} exact points (${c.step === 1 ? 'every point' : `1 point in ${c.step}`})${c.offTarget ? `, ${c.offTarget} off target` : ''}, ${c.violations} violations, ${c.nonConverged} not converged [${seconds(c.durationMs)}]`,
    ],
  };
}

const byOperation = (a: OperationCount, b: OperationCount) => CRASH_OPERATIONS.indexOf(a.operation) - CRASH_OPERATIONS.indexOf(b.operation);

export const crashPoints = crashSection('crash-points', 'crashPoints', 'c', 'crash-points (strace SIGKILL)');
export const injectedErrors = crashSection('injected-errors', 'injectedErrors', 'e', 'injected-errors (ENOSPC, EIO)');
