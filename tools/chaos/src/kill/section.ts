// kill: the local ssh client SIGKILLed mid-call, on `killLanes` hosts of the strace variant at once.
import { KILL_OPERATIONS, killLane } from './kill-trials.js';
import { STEP_DELAY_MS } from './step-delay.js';
import type { TrialRecord } from '../trials/trial.js';
import { midwayShares, summarizeTrials, type TrialSummary } from '../trials/trial-summary.js';
import { failedTrial, seconds, trialGoals, type Section } from '../campaign/section.js';

export type KillSummary = TrialSummary & { durationMs: number; calibrationMs: Record<string, number>[]; stepDelayMs?: Record<string, number>[] };

/** The share of client kills that must land between two effects of their operation, once each has this many. */
export const MIDWAY_SHARE = 0.3;
const MIDWAY_SAMPLE = 20;

/** The lanes' longer holds (step-delay.ts), where any lane made one. */
const heldLonger = (lanes: Record<string, number>[]) =>
  lanes.some((lane) => Object.keys(lane).length > 0)
    ? [
        `     change calls held longer than ${STEP_DELAY_MS} ms, by lane: ${lanes
          .map(
            (lane) =>
              Object.entries(lane)
                .map(([op, ms]) => `${op} ${ms} ms`)
                .join(', ') || 'none',
          )
          .join('; ')}`,
      ]
    : [];

export const kill: Section<'kill', 'kill', KillSummary> = {
  name: 'kill',
  key: 'kill',
  lanes: (sizes) => Array.from({ length: sizes.killLanes }, (_, lane) => ({ host: `k${lane}`, variant: 'strace' as const, order: 0 })),
  run({ sizes, rng, progress, startedAt, laneCorpora }) {
    const records: TrialRecord[][] = [];
    const calibration: Record<string, number>[] = [];
    const delays: Record<string, number>[] = [];
    let killed = 0;
    let ended = startedAt;
    return {
      async part(lane, link) {
        const perLane = Math.ceil(sizes.killTrials / sizes.killLanes);
        const result = await killLane(link, rng.fork(`kill-${lane}`), perLane, `k${lane}`, Math.round((lane * 9) / sizes.killLanes), (record) => {
          killed += 1;
          const bad = failedTrial(record);
          if (bad || killed % 10 === 0) progress(`kill ${killed}/${sizes.killTrials}: ${record.operation} cut at ${record.atMs}/${record.measuredMs} ms (${record.effect})${bad}`);
        });
        records[lane] = result.records;
        laneCorpora.push(...result.corpora);
        calibration[lane] = result.durations;
        delays[lane] = result.stepDelayMs;
        ended = Math.max(ended, Date.now());
      },
      summarize() {
        const all = records.flat().filter(Boolean);
        if (all.length === 0) return undefined;
        return { ...summarizeTrials(all, (record) => record.operation), durationMs: ended - startedAt, calibrationMs: calibration.filter(Boolean), stepDelayMs: delays.filter(Boolean) };
      },
    };
  },
  targets(kill, sizes) {
    const ops = KILL_OPERATIONS;
    const goals = [
      { name: `at least ${sizes.killTrials} SIGKILL trials`, met: kill.trials >= sizes.killTrials, detail: `${kill.trials} trials` },
      { name: 'every mutating operation was cut', met: ops.every((op) => (kill.by[op]?.trials ?? 0) > 0), detail: ops.map((op) => `${op} ${kill.by[op]?.trials ?? 0}`).join(', ') },
    ];
    // A share needs a sample: the quick campaign's handful of kills per operation only prints it.
    if (sizes.killTrials >= MIDWAY_SAMPLE * ops.length) {
      const share = (op: string) => (kill.by[op]?.midway ?? 0) / Math.max(1, kill.by[op]?.trials ?? 0);
      goals.push({ name: `at least ${MIDWAY_SHARE * 100}% of every operation's kills cut it midway`, met: ops.every((op) => share(op) >= MIDWAY_SHARE), detail: midwayShares(kill) });
    }
    return [...goals, ...trialGoals(kill)];
  },
  counts: (kill) => ({ trials: kill.trials, violations: kill.violations, nonConverged: kill.nonConverged }),
  lines(kill) {
    const midway = Object.values(kill.by).reduce((sum, entry) => sum + entry.midway, 0);
    return [
      `  kill (ssh client SIGKILL): ${kill.trials} trials (${midway} cut between two changes, ${kill.effects.intermediate} of them leaving a partial state; ${kill.completedFirst} completed first), ${kill.violations} violations, ${kill.nonConverged} not converged [${seconds(kill.durationMs)}]`,
      `     cut between two changes (partial: left an intermediate state, the rest undone by the helper): ${midwayShares(kill)}`,
      ...heldLonger(kill.stepDelayMs ?? []),
    ];
  },
};
