// Command line of `npm run chaos`, and the size of the quick and the full campaign.
import { namesFrom, parseFlags, UsageError } from '@occ-ssh/test-support';

export { UsageError };

export const SECTIONS = ['kill', 'faults', 'races', 'bad-input', 'hostile', 'secrets', 'crash-points', 'injected-errors', 'hostile-tenants'] as const;
export type Section = (typeof SECTIONS)[number];

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
  /** Hostile tenants: trials with a lock-holding gateway (alternately --shared and --exclusive), and with a trickling /readyz. */
  tenantLockTrials: number;
  tenantTrickleTrials: number;
  /** Hostile tenants: how deep the planted chains are, and how many files are planted. */
  tenantTreeDepth: number;
  tenantTreeFiles: number;
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
  crashPointStep: 5,
  tenantLockTrials: 2,
  tenantTrickleTrials: 1,
  tenantTreeDepth: 3000,
  tenantTreeFiles: 20_000,
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
  tenantLockTrials: 6,
  tenantTrickleTrials: 3,
  tenantTreeDepth: 10_000,
  tenantTreeFiles: 100_000,
};

export const DEFAULT_SEED = 20_240_601;

export interface Options {
  mode: 'quick' | 'full';
  seed: number;
  sizes: Sizes;
  sections: Section[];
  out: string;
}

export const USAGE = `usage: npm run chaos -- [--quick] [--seed N] [--only section,...] [--crash-step N] [--out file]

  --quick     the short fixed-seed campaign CI runs (a few minutes)
  --seed N    seed of every random choice (default ${DEFAULT_SEED}); the same seed replays the same plan
  --only      run only these sections: ${SECTIONS.join(', ')} (for investigation; targets of the others are not judged)
  --crash-step N  try every N-th crash point and injected-error point (quick: 5, full: 1)
  --out       results file (default chaos/results/latest.json, quick runs chaos/results/quick.json)`;

export function parseOptions(argv: readonly string[], defaultOut: { full: string; quick: string }): Options {
  const values = parseFlags(argv, {
    quick: { type: 'boolean', default: false },
    seed: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
    'crash-step': { type: 'string' },
  });
  if (values.help) throw new UsageError('help');
  let seed = DEFAULT_SEED;
  if (values.seed !== undefined) {
    if (!/^[0-9]{1,10}$/.test(values.seed) || Number(values.seed) > 0xffffffff) throw new UsageError('--seed must be an integer from 0 to 4294967295');
    seed = Number(values.seed);
  }
  const sections: Section[] = values.only === undefined ? [...SECTIONS] : namesFrom('only', values.only, SECTIONS);
  const mode = values.quick ? 'quick' : 'full';
  const sizes = { ...(mode === 'quick' ? QUICK : FULL) };
  if (values['crash-step'] !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(values['crash-step'])) throw new UsageError('--crash-step must be an integer from 1 to 999');
    sizes.crashPointStep = Number(values['crash-step']);
  }
  return { mode, seed, sizes, sections, out: values.out ?? defaultOut[mode] };
}
