// The sum of a list of trials (kill and host-fault trials): counts per operation or fault, effects,
// helper waits, and the first failures.
import type { TrialRecord } from './trial.js';

/** Failures listed in full in the results file, per section. */
export const MAX_LISTED = 25;

export interface TrialSummary {
  trials: number;
  /** Trials with at least one invariant violation (after the fault or after the retry). */
  violations: number;
  violationItems: number;
  /** Trials whose retry did not reach the intended state. */
  nonConverged: number;
  /** The fault came too late to cut the call (its result line arrived). */
  completedFirst: number;
  /** What the fault left on the host before the retry. */
  effects: Record<TrialRecord['effect'], number>;
  by: Record<string, { trials: number; violations: number; nonConverged: number; intermediate: number; midway: number; completedFirst: number }>;
  /** How long helpers went on after the fault before the checker saw them gone (heartbeat detection). */
  helperWaitMs: { median: number; max: number };
  failures: TrialRecord[];
}

export function summarizeTrials(records: readonly TrialRecord[], key: (record: TrialRecord) => string): TrialSummary {
  const by: TrialSummary['by'] = {};
  const effects = { none: 0, complete: 0, intermediate: 0 };
  for (const record of records) {
    const entry = (by[key(record)] ??= { trials: 0, violations: 0, nonConverged: 0, intermediate: 0, midway: 0, completedFirst: 0 });
    entry.trials += 1;
    if (record.violations.length > 0) entry.violations += 1;
    if (record.problems.length > 0) entry.nonConverged += 1;
    if (record.effect === 'intermediate') entry.intermediate += 1;
    if (record.midway ?? record.effect === 'intermediate') entry.midway += 1;
    if (record.completedFirst) entry.completedFirst += 1;
    effects[record.effect] += 1;
  }
  // The upper middle sample, not the interpolated median: the published campaigns use this one.
  const waits = records.map((record) => record.helperWaitMs).sort((a, b) => a - b);
  const failing = records.filter((record) => record.violations.length > 0 || record.problems.length > 0);
  return {
    trials: records.length,
    violations: records.filter((record) => record.violations.length > 0).length,
    violationItems: records.reduce((sum, record) => sum + record.violations.length, 0),
    nonConverged: records.filter((record) => record.problems.length > 0).length,
    completedFirst: records.filter((record) => record.completedFirst).length,
    effects,
    by,
    helperWaitMs: { median: waits[Math.floor(waits.length / 2)] ?? 0, max: waits[waits.length - 1] ?? 0 },
    failures: failing.slice(0, MAX_LISTED),
  };
}

/** Per operation: how many of its kills left an intermediate state on the host (`ensure-namespace 3/56 (5%)`). */
export function intermediateShares(summary: TrialSummary): string {
  return Object.entries(summary.by)
    .map(([op, entry]) => `${op} ${entry.intermediate}/${entry.trials} (${entry.trials ? Math.round((100 * entry.intermediate) / entry.trials) : 0}%)`)
    .join(', ');
}

/** Per operation: how many of its kills fell between two of its changes, and how many of those left a partial state. */
export function midwayShares(summary: TrialSummary): string {
  return Object.entries(summary.by)
    .map(([op, entry]) => `${op} ${entry.midway}/${entry.trials} (${entry.trials ? Math.round((100 * entry.midway) / entry.trials) : 0}%, ${entry.intermediate} partial)`)
    .join(', ');
}
