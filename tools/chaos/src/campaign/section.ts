// One interface for every section of the campaign: where its parts run, how it runs them, what it
// sums up for the results file, and the targets that sum is judged by. The table in sections.ts lists
// them; adding a section is one file and one entry there.
import type { Variant } from '@occ-ssh/testhost';
import type { Sizes } from './sizes.js';
import type { Rng } from './rng.js';
import type { Corpus } from '../secrets/sightings.js';
import type { HostLink } from '../host/ssh.js';

/** A lane is one test host; its parts run one after the other, lowest `order` first. */
interface Lane {
  host: string;
  variant?: Variant;
  order: number;
}

interface SectionContext {
  sizes: Sizes;
  rng: Rng;
  progress: (line: string) => void;
  /** When the lanes started. */
  startedAt: number;
  /** What the kill and crash lanes kept: searched for their workspace document sentinel at the end. */
  laneCorpora: Corpus[];
}

interface SectionRun<Summary> {
  /** Runs the part for `lanes(sizes)[index]` on that lane's host. */
  part(index: number, link: HostLink): Promise<void>;
  /** Once every lane has ended: the section's results, or nothing when no part produced any. */
  summarize(): Summary | undefined;
  /** After every section is summed up: what the section checks in the whole results file (secrets). */
  review?(resultsText: () => string): void;
}

export interface Goal {
  name: string;
  met: boolean;
  detail: string;
}

/** The same six counts for every section (absent where a count does not apply). */
export interface Counts {
  trials: number;
  violations?: number;
  nonConverged?: number;
  refused?: number;
  unchanged?: number;
  sightings?: number;
}

// Methods, not function properties: a table of sections with different summaries is then one array type.
export interface Section<Name extends string, Key extends string, Summary> {
  /** Its name on the command line (`--only`) and in targets. */
  name: Name;
  /** Its key under `sections` and `counts` in the results file. */
  key: Key;
  lanes(sizes: Sizes): Lane[];
  run(ctx: SectionContext): SectionRun<Summary>;
  targets(summary: Summary, sizes: Sizes): Goal[];
  counts(summary: Summary): Counts;
  /** Its lines of the printed summary; `missed` is how many of its targets were missed. */
  lines(summary: Summary, missed: number): string[];
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(0)} s`;

/** A trial's violations and problems, as the progress line's tail. */
export const failedTrial = (record: { violations: { message: string }[]; problems: string[] }): string =>
  record.violations.length + record.problems.length > 0 ? ` FAILED: ${[...record.violations.map((v) => v.message), ...record.problems].join('; ')}` : '';

/** The two targets every trial section shares: no violation, every retry converged. */
export function trialGoals(summary: { trials: number; violations: number; nonConverged: number }): Goal[] {
  return [
    { name: 'zero invariant violations', met: summary.violations === 0, detail: `${summary.violations} trials with violations` },
    { name: '100% convergence', met: summary.nonConverged === 0, detail: `${summary.trials - summary.nonConverged}/${summary.trials} converged` },
  ];
}
