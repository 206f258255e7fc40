// faults: host-side faults (helper killed, sshd restarted, host rebooted, gateway never ready) and the waits they leave.
import { faultLane } from './host-faults.js';
import { WAIT_FAULTS, waitLane } from './wait-faults.js';
import type { TrialRecord } from '../trials/trial.js';
import { summarizeTrials, type TrialSummary } from '../trials/trial-summary.js';
import { failedTrial, seconds, trialGoals, type Section } from '../campaign/section.js';

/** `notLanded`: the wait faults that could not land in the wait on this machine (judged on invariants only). */
export type FaultsSummary = TrialSummary & { durationMs: number; notLanded?: string[] };

export const faults: Section<'faults', 'faults', FaultsSummary> = {
  name: 'faults',
  key: 'faults',
  lanes: () => [{ host: 'f', order: 0 }],
  run({ sizes, rng, progress }) {
    let summary: FaultsSummary | undefined;
    return {
      async part(_index, link) {
        const t0 = Date.now();
        const plan = { helperKills: sizes.helperKills, sshdRestarts: sizes.sshdRestarts, reboots: sizes.reboots, unready: sizes.unready };
        const report = (record: TrialRecord) => progress(`faults: ${record.fault} at ${record.atMs}/${record.measuredMs} ms (${record.effect})${failedTrial(record)}`);
        const { records } = await faultLane(link, rng.fork('faults'), plan, report);
        records.push(...(await waitLane(link, rng.fork('wait'), report)));
        const notLanded = records.filter((record) => record.notLanded).map((record) => record.fault);
        summary = { ...summarizeTrials(records, (record) => record.fault), durationMs: Date.now() - t0, notLanded };
      },
      summarize: () => summary,
    };
  },
  targets(faults, sizes) {
    const planned = sizes.helperKills + sizes.sshdRestarts + sizes.reboots + sizes.unready + WAIT_FAULTS.length;
    const kinds = Object.entries(faults.by)
      .map(([kind, entry]) => `${kind} ${entry.trials}`)
      .join(', ');
    const late = faults.notLanded?.length ? `; could not land in time, not counted: ${faults.notLanded.join(', ')}` : '';
    return [{ name: `all ${planned} host-side faults ran`, met: faults.trials === planned, detail: `${faults.trials} trials: ${kinds}${late}` }, ...trialGoals(faults)];
  },
  counts: (faults) => ({ trials: faults.trials, violations: faults.violations, nonConverged: faults.nonConverged }),
  lines: (faults) => [
    `  faults (host faults): ${faults.trials} trials (${Object.entries(faults.by)
      .map(([k, v]) => `${k} ${v.trials}`)
      .join(
        ', ',
      )}), ${faults.violations} violations, ${faults.nonConverged} not converged${faults.notLanded?.length ? `, ${faults.notLanded.length} wait faults could not land in time` : ''} [${seconds(faults.durationMs)}]`,
  ],
};
