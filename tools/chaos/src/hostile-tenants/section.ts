// hostile-tenants: compromised gateways that stall or flood a whole host, run as the Agent's
// account inside its unit, on a host of their own beside every other lane; the host-pressure attacks
// on the races lane's host once its races are done (its quick lane is short), so neither lengthens the campaign.
import { tenantTargets, tenantViolations } from './tenant-judge.js';
import type { PressureResults, TenantsResult } from './tenant-results.js';
import { runTenants } from './tenants.js';
import { runPressure } from '../pressure/pressure.js';
import { seconds, type Section } from '../campaign/section.js';

export const hostileTenants: Section<'hostile-tenants', 'hostileTenants', TenantsResult> = {
  name: 'hostile-tenants',
  key: 'hostileTenants',
  lanes: () => [
    { host: 't', order: 0 },
    { host: 'r', order: 2 },
  ],
  run({ sizes, rng, progress }) {
    let result: TenantsResult | undefined;
    let pressure: PressureResults | undefined;
    return {
      async part(index, link) {
        const plan = {
          lockTrials: sizes.tenantLockTrials,
          trickleTrials: sizes.tenantTrickleTrials,
          treeDepth: sizes.tenantTreeDepth,
          treeFiles: sizes.tenantTreeFiles,
          plantedNames: sizes.tenantPlantedNames,
          floodEntryMiB: sizes.tenantFloodEntryMiB,
          floodSampleMs: sizes.tenantFloodSampleMs,
        };
        if (index === 1) {
          pressure = await runPressure(link, plan, progress);
          return;
        }
        const tenantRng = rng.fork('hostile-tenants');
        result = await runTenants(link, plan, (length) => tenantRng.hex(length), progress);
      },
      summarize: () => (result && pressure ? { ...result, pressure } : result),
    };
  },
  targets: (t) => tenantTargets(t),
  counts(t) {
    const pressure = Object.values(t.pressure ?? {}).filter(Boolean).length;
    const trials = t.lock.length + t.trickle.length + (t.forgedAudit ? 1 : 0) + (t.hugeTrees ? 1 : 0) + (t.placeholders ? 1 : 0) + pressure;
    return { trials, violations: tenantViolations(t), sightings: t.placeholders?.sightings ?? 0 };
  },
  lines: (t, missed) => [
    `  hostile-tenants: ${t.lock.length} lock-holder trials, ${t.trickle.length} trickling /readyz, forged audit, huge trees (${t.plan.treeDepth} levels, ${t.plan.treeFiles} files), placeholder readers: ${t.placeholders?.sightings ?? 0} sightings, planted names (${t.plan.plantedNames}), the stopper, a journal flood (${t.plan.floodEntryMiB} MiB entries), ${missed} targets missed [${seconds(t.durationMs)}${t.pressure?.durationMs === undefined ? '' : `, pressure ${seconds(t.pressure.durationMs)}`}]`,
  ],
};
