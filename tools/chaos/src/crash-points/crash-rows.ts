// The reliability table's rows: per operation and lane, the points counted and tried, and how the trials ended.
import { ERROR_FOR, type CrashRecord, type OperationCount } from './records.js';
import type { Point } from './strace-log.js';

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
