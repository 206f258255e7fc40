// bad-input: malformed configurations and arguments, each refused with a classified error before
// any change, the host tree compared around every batch.
import { runBadInput, type BadCaseResult } from './run-bad-input.js';
import { MAX_LISTED } from '../trials/trial-summary.js';
import { seconds, type Section } from '../campaign/section.js';

export interface BadInputSummary {
  cases: number;
  refused: number;
  /** Refused with a permanent ComputeError (documents: naming the key path; helper: `configuration`). */
  classified: number;
  unchanged: number;
  /** Host tree comparisons, and how many of them found a change. */
  batches: number;
  changedBatches: number;
  /** Each host tree comparison: which cases it bracketed and whether the tree was unchanged. */
  perBatch: { group: string; batch: number; cases: number; unchanged: boolean }[];
  byGroup: Record<string, { cases: number; refused: number; classified: number; unchanged: number }>;
  codes: Record<string, number>;
  failures: BadCaseResult[];
}

export function summarizeBadInput(results: readonly BadCaseResult[]): BadInputSummary {
  const byGroup: BadInputSummary['byGroup'] = {};
  const codes: Record<string, number> = {};
  const batches = new Map<string, { group: string; batch: number; cases: number; unchanged: boolean }>();
  for (const result of results) {
    const entry = (byGroup[result.group] ??= { cases: 0, refused: 0, classified: 0, unchanged: 0 });
    entry.cases += 1;
    if (result.refused) entry.refused += 1;
    if (result.classified) entry.classified += 1;
    if (result.unchanged) entry.unchanged += 1;
    const code = `${result.group}: ${result.code ?? 'none'}`;
    codes[code] = (codes[code] ?? 0) + 1;
    const key = `${result.group}#${result.batch}`;
    const batch = batches.get(key) ?? { group: result.group, batch: result.batch, cases: 0, unchanged: true };
    batch.cases += 1;
    batch.unchanged &&= result.unchanged;
    batches.set(key, batch);
  }
  return {
    cases: results.length,
    refused: results.filter((result) => result.refused).length,
    classified: results.filter((result) => result.classified).length,
    unchanged: results.filter((result) => result.unchanged).length,
    batches: batches.size,
    changedBatches: [...batches.values()].filter((batch) => !batch.unchanged).length,
    perBatch: [...batches.values()],
    byGroup,
    codes,
    // Cases that were not refused first: they are the likely cause of a changed batch.
    failures: [...results.filter((result) => !result.refused || !result.classified), ...results.filter((result) => result.refused && result.classified && !result.unchanged)].slice(0, MAX_LISTED),
  };
}

export type BadInputResult = BadInputSummary & { durationMs: number };

export const badInput: Section<'bad-input', 'badInput', BadInputResult> = {
  name: 'bad-input',
  key: 'badInput',
  lanes: () => [{ host: 'h', order: 1 }],
  run({ sizes, rng, progress }) {
    let summary: BadInputResult | undefined;
    return {
      async part(_index, link) {
        const t0 = Date.now();
        const found = await runBadInput(link, rng.fork('bad-input'), { randomConfigs: sizes.randomConfigs, randomArguments: sizes.randomArguments, batchSize: sizes.badInputBatch }, progress);
        summary = { ...summarizeBadInput(found), durationMs: Date.now() - t0 };
      },
      summarize: () => summary,
    };
  },
  targets: (bad) => [
    {
      name: 'at least 200 malformed cases',
      met: bad.cases >= 200,
      detail: `${bad.cases} cases: ${Object.entries(bad.byGroup)
        .map(([group, entry]) => `${group} ${entry.cases}`)
        .join(', ')}`,
    },
    {
      name: '100% refused with a permanent, classified error',
      met: bad.refused === bad.cases && bad.classified === bad.cases,
      detail: `${bad.refused} refused, ${bad.classified} classified of ${bad.cases}`,
    },
    { name: '100% host unchanged', met: bad.unchanged === bad.cases && bad.changedBatches === 0, detail: `${bad.unchanged}/${bad.cases} unchanged over ${bad.batches} comparisons` },
  ],
  counts: (bad) => ({ trials: bad.cases, refused: bad.classified, unchanged: bad.unchanged }),
  lines: (bad) => [`  bad-input: ${bad.cases} cases, ${bad.refused} refused, ${bad.classified} classified, ${bad.unchanged} unchanged (${bad.batches} tree comparisons) [${seconds(bad.durationMs)}]`],
};
