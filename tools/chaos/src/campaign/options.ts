// Command line of `npm run chaos`.
import { namesFrom, parseFlags, UsageError } from '@occ-ssh/test-support';
import { ANY_SECTIONS, type SectionName } from './sections.js';
import { FULL, QUICK, type Sizes } from './sizes.js';

export { UsageError };

export type { SectionName };
/** Every section's name, in the table's order. */
export const SECTIONS: readonly SectionName[] = ANY_SECTIONS.map((section) => section.name);

export const DEFAULT_SEED = 20_240_601;

export interface Options {
  mode: 'quick' | 'full';
  seed: number;
  sizes: Sizes;
  sections: SectionName[];
  out: string;
}

export const USAGE = `usage: npm run chaos -- [--quick] [--seed N] [--only section,...] [--crash-step N] [--out file]

  --quick     the short fixed-seed campaign CI runs (a few minutes)
  --seed N    seed of every random choice (default ${DEFAULT_SEED}); the same seed replays the same plan
  --only      run only these sections: ${SECTIONS.join(', ')} (for investigation; targets of the others are not judged)
  --crash-step N  try every N-th crash point and injected-error point (quick: 15, full: 1)
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
  const sections: SectionName[] = values.only === undefined ? [...SECTIONS] : namesFrom('only', values.only, SECTIONS);
  const mode = values.quick ? 'quick' : 'full';
  const sizes = { ...(mode === 'quick' ? QUICK : FULL) };
  if (values['crash-step'] !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(values['crash-step'])) throw new UsageError('--crash-step must be an integer from 1 to 999');
    sizes.crashPointStep = Number(values['crash-step']);
  }
  return { mode, seed, sizes, sections, out: values.out ?? defaultOut[mode] };
}
