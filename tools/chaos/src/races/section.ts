// races: concurrent port allocations from several controllers, then prepare racing delete-namespace
// (on the lane the sizes choose: after the allocations, or after faults and secrets).
import { newRaceResult, runAllocations, runPrepareVsDelete, type RaceResult } from './races.js';
import { seconds, type Section } from '../campaign/section.js';

export type RacesSummary = RaceResult & { durationMs: number };

export const races: Section<'races', 'races', RacesSummary> = {
  name: 'races',
  key: 'races',
  lanes: (sizes) => [{ host: 'r', order: 0 }, sizes.prepareDeleteLane === 'faults' ? { host: 'f', order: 2 } : { host: 'r', order: 1 }],
  run({ sizes, rng, progress }) {
    let race: RacesSummary | undefined;
    const plan = { allocations: sizes.allocations, controllers: sizes.controllers, roundsPerBatch: sizes.roundsPerBatch, prepareDeleteRounds: sizes.prepareDeleteRounds };
    return {
      async part(index, link) {
        const t0 = Date.now();
        race ??= { ...newRaceResult(), durationMs: 0 };
        if (index === 0) await runAllocations(link, rng.fork('races'), plan, race, progress);
        else await runPrepareVsDelete(link, rng.fork('prepare-vs-delete'), plan, race, progress);
        race.durationMs += Date.now() - t0;
      },
      summarize: () => race,
    };
  },
  targets: (races, sizes) => [
    {
      name: `at least ${sizes.allocations} concurrent port allocations`,
      met: races.allocations >= sizes.allocations,
      detail: `${races.allocations} allocations, ${races.failedPrepares.length} failed prepares`,
    },
    {
      name: 'no port given twice, every account distinct',
      met: races.duplicatePorts === 0 && races.duplicateAccounts === 0,
      detail: `${races.duplicatePorts} duplicate ports, ${races.duplicateAccounts} duplicate accounts`,
    },
    {
      name: 'every prepared Agent complete, every deletion clean',
      met: races.missingAgents === 0 && races.failedPrepares.length === 0 && races.batches.every((batch) => batch.deletedClean),
      detail: `${races.missingAgents} missing Agents, ${races.batches.filter((batch) => !batch.deletedClean).length} unclean deletions`,
    },
    {
      name: 'prepare racing delete ends consistent',
      met: races.prepareVsDelete.rounds === sizes.prepareDeleteRounds && races.prepareVsDelete.inconsistent === 0,
      detail: `${races.prepareVsDelete.rounds} rounds: ${races.prepareVsDelete.deleted} deleted, ${races.prepareVsDelete.prepared} prepared, ${races.prepareVsDelete.inconsistent} inconsistent`,
    },
    { name: 'zero invariant violations', met: races.violations.length === 0, detail: `${races.violations.length} violations` },
  ],
  counts: (r) => ({
    trials: r.allocations + r.prepareVsDelete.rounds,
    violations: r.violations.length + r.duplicatePorts + r.duplicateAccounts,
    nonConverged: r.missingAgents + r.prepareVsDelete.inconsistent + r.batches.filter((b) => !b.deletedClean).length,
  }),
  lines: (r) => [
    `  races: ${r.allocations} allocations, ${r.duplicatePorts} duplicate ports, ${r.duplicateAccounts} duplicate accounts; prepare vs delete ${r.prepareVsDelete.rounds} rounds, ${r.prepareVsDelete.inconsistent} inconsistent; ${r.violations.length} violations [${seconds(r.durationMs)}]`,
  ],
};
