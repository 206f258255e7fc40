// secrets: no secret (document sentinels, launch placeholders, the managed password, a hook's text)
// in any log, error, CLI output, journal, argv or file another account can read, nor in the results file.
import { runSecrets, type SecretsResult } from './run-secrets.js';
import { groupSightings, type Corpus, type Sighting, type SightingGroup } from './sightings.js';
import { seconds, type Section } from '../campaign/section.js';

export type SecretsSummary = Omit<SecretsResult, 'sightings'> & { sightings: number; found: SightingGroup[]; durationMs: number };

const RESULTS_FILE = 'campaign results file';

export const secrets: Section<'secrets', 'secrets', SecretsSummary> = {
  name: 'secrets',
  key: 'secrets',
  lanes: () => [{ host: 'f', order: 1 }],
  run({ rng, progress }) {
    let summary: SecretsSummary | undefined;
    let scan: ((corpora: Corpus[]) => Sighting[]) | undefined;
    return {
      async part(_index, link) {
        const t0 = Date.now();
        const ran = await runSecrets(link, rng.fork('secrets'), progress);
        scan = ran.scan;
        const { sightings, ...rest } = ran.result;
        summary = { ...rest, sightings: sightings.length, found: groupSightings(sightings), durationMs: Date.now() - t0 };
      },
      summarize: () => summary,
      // The campaign's own records (every error message and state listing it kept) must not carry the secrets either.
      review(resultsText) {
        if (!scan || !summary) return;
        const own = scan([{ name: RESULTS_FILE, text: resultsText() }]);
        summary.found.push(...groupSightings(own));
        summary.sightings += own.length;
        summary.corpora.push({ name: RESULTS_FILE, bytes: resultsText().length });
      },
    };
  },
  targets: (s) => [
    {
      name: 'zero sightings',
      met: s.sightings === 0,
      detail: `${s.sightings} sightings in ${s.corpora.length} corpora; ${s.helperInvocationsSampled.host} helper invocations sampled on the host argv, ${s.helperInvocationsSampled.local} on the local one`,
    },
    {
      name: 'every corpus collected and every check ran',
      met: s.problems.length === 0 && s.corpora.every((corpus) => corpus.bytes > 0 || corpus.name === 'gateway journal'),
      detail: s.problems.join('; ') || `${s.corpora.length} corpora`,
    },
  ],
  counts: (s) => ({ trials: s.corpora.length, sightings: s.sightings }),
  lines: (s) => [
    `  secrets: ${s.sightings} sightings in ${s.corpora.length} corpora (${s.helperInvocationsSampled.host + s.helperInvocationsSampled.local} helper invocations sampled on argv) [${seconds(s.durationMs)}]`,
  ],
};
