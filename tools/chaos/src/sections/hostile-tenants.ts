// hostile-tenants: compromised gateways that stall or flood a whole host, run as the Agent's
// account inside its unit, on a host of their own beside every other lane.
import { tenantTargets, tenantViolations } from '../tenant-judge.js';
import type { TenantsResult } from '../tenant-results.js';
import { runTenants } from '../tenants.js';
import { seconds, type Section } from './section.js';

export const hostileTenants: Section<'hostile-tenants', 'hostileTenants', TenantsResult> = {
  name: 'hostile-tenants',
  key: 'hostileTenants',
  lanes: () => [{ host: 't', order: 0 }],
  run({ sizes, rng, progress }) {
    let result: TenantsResult | undefined;
    return {
      async part(_index, link) {
        const plan = { lockTrials: sizes.tenantLockTrials, trickleTrials: sizes.tenantTrickleTrials, treeDepth: sizes.tenantTreeDepth, treeFiles: sizes.tenantTreeFiles };
        const tenantRng = rng.fork('hostile-tenants');
        result = await runTenants(link, plan, (length) => tenantRng.hex(length), progress);
      },
      summarize: () => result,
    };
  },
  targets: (t) => tenantTargets(t),
  counts(t) {
    const trials = t.lock.length + t.trickle.length + (t.forgedAudit ? 1 : 0) + (t.hugeTrees ? 1 : 0) + (t.placeholders ? 1 : 0);
    return { trials, violations: tenantViolations(t), sightings: t.placeholders?.sightings ?? 0 };
  },
  lines: (t, missed) => [
    `  hostile-tenants: ${t.lock.length} lock-holder trials, ${t.trickle.length} trickling /readyz, forged audit, huge trees (${t.plan.treeDepth} levels, ${t.plan.treeFiles} files), placeholder readers: ${t.placeholders?.sightings ?? 0} sightings, ${missed} targets missed [${seconds(t.durationMs)}]`,
  ],
};
