// How each figure's row is made: its target, as data (the bound), and the two row shapes that carry it.
import type { FigureRow } from './results.js';
import { ratio } from './stats.js';

/** The bound of every figure with a target. */
export const TARGETS = {
  latencyNewConnection: 1.15,
  latencyReusedConnection: 2,
  activationMs: 150,
  /** Activation overhead on the reusing transports over its measured floor (issue: within 1.5x). */
  activationFloor: 1.5,
  ansible: 5,
  scale: 1.2,
  scaleLockMs: 100,
  inventoryMs: 10_000,
  fleet: 1.5,
  restartWarm: 0.88,
  restartUnit: 1.1,
  concurrency: 1.3,
} as const;

export const OP_LABEL: Record<string, string> = { probe: 'probe', 'verify-revision': 'verify-revision', 'prepare-revision': 'prepare-revision (idempotent)' };

/** A p99 of fewer than 100 samples is an interpolation next to the largest one: say so. */
export function percentileCaveat(n: number): string {
  return n < 100 ? ` (with ${n} samples the p99 is close to the maximum)` : '';
}

/** A row whose target is a ratio of its measured value to its baseline. */
export function row(figure: string, name: string, measured: number, baseline: number, limit: number, detail: string): FigureRow {
  const r = ratio(measured, baseline);
  return { figure, name, measured, baseline, unit: 'ms', ratio: r, target: `≤ ${limit}x`, limit: baseline * limit, met: Number.isFinite(r) ? r <= limit : null, detail };
}

/** A row reported as measured, with no target to meet. */
export function informational(figure: string, name: string, measured: number, unit: FigureRow['unit'], detail: string): FigureRow {
  return { figure, name, measured, baseline: null, unit, ratio: null, target: '(informational)', limit: null, met: null, detail };
}
