// The size of the quick and the full campaign.

export interface Sizes {
  killTrials: number;
  /** Kill trials run on this many hosts at once. */
  killLanes: number;
  helperKills: number;
  sshdRestarts: number;
  reboots: number;
  unready: number;
  allocations: number;
  controllers: number;
  roundsPerBatch: number;
  prepareDeleteRounds: number;
  randomConfigs: number;
  randomArguments: number;
  badInputBatch: number;
  /** Only the hostile cases marked core (one of every kind), or all of them. */
  hostileCoreOnly: boolean;
  /** Which lane's host runs the prepare-versus-delete rounds: after the allocations, or after faults and secrets. */
  prepareDeleteLane: 'races' | 'faults';
  /** Crash points and injected errors: every n-th point of each operation (1: every point). */
  crashPointStep: number;
  /** Crash points: hosts that share the operations between them (each takes the next one left when it is done). */
  crashHosts: number;
  /** Hostile tenants: trials with a lock-holding gateway (alternately --shared and --exclusive), and with a trickling /readyz. */
  tenantLockTrials: number;
  tenantTrickleTrials: number;
  /** Hostile tenants: how deep the planted chains are, and how many files are planted. */
  tenantTreeDepth: number;
  tenantTreeFiles: number;
  /** Hostile tenants, host pressure: names planted for a deletion to remove, the journal flood's entry size and each /readyz sample's length. */
  tenantPlantedNames: number;
  tenantFloodEntryMiB: number;
  tenantFloodSampleMs: number;
}

export const QUICK: Sizes = {
  killTrials: 40,
  killLanes: 4,
  helperKills: 1,
  sshdRestarts: 1,
  reboots: 1,
  unready: 1,
  allocations: 60,
  controllers: 6,
  roundsPerBatch: 10,
  prepareDeleteRounds: 2,
  randomConfigs: 40,
  randomArguments: 6,
  badInputBatch: 40,
  hostileCoreOnly: true,
  prepareDeleteLane: 'races',
  // Every point is the full campaign's; CI's quick pass samples one in fifteen, each operation's first
  // point always among them. CI on two cores is bound by CPU from start to end, and a trial costs
  // about 6 CPU-seconds: at one in five the two crash hosts set the quick campaign's length (787 s of
  // 789 s), at one in ten its 76 trials took 480 of its 1,100 CPU-seconds.
  crashPointStep: 15,
  // Alone, one crash host outlasted every other lane by 350 s (920 s of a 931 s campaign).
  crashHosts: 2,
  tenantLockTrials: 2,
  tenantTrickleTrials: 1,
  tenantTreeDepth: 3000,
  tenantTreeFiles: 20_000,
  tenantPlantedNames: 200_000,
  tenantFloodEntryMiB: 32,
  tenantFloodSampleMs: 5000,
};

export const FULL: Sizes = {
  killTrials: 500,
  killLanes: 4,
  helperKills: 12,
  sshdRestarts: 6,
  reboots: 3,
  unready: 5,
  allocations: 1002,
  controllers: 6,
  roundsPerBatch: 14,
  prepareDeleteRounds: 20,
  randomConfigs: 80,
  randomArguments: 40,
  badInputBatch: 1,
  hostileCoreOnly: false,
  prepareDeleteLane: 'faults',
  crashPointStep: 1,
  crashHosts: 1,
  tenantLockTrials: 6,
  tenantTrickleTrials: 3,
  tenantTreeDepth: 10_000,
  tenantTreeFiles: 100_000,
  tenantPlantedNames: 1_500_000,
  tenantFloodEntryMiB: 32,
  tenantFloodSampleMs: 20_000,
};
