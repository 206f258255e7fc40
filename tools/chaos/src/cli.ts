// `npm run chaos -- [--quick] [--seed N]`: boots real test hosts, runs every section of the
// campaign (in parallel lanes, one host each), writes chaos/results/latest.json, prints the counts
// and exits nonzero when any target is missed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestHost, type Variant } from '@occ-ssh/testhost';
import { helperArtifact, measuredCommit, runCommandLine } from '@occ-ssh/test-support';
import { parseOptions, SECTIONS, USAGE, type Options, type SectionName } from './campaign/options.js';
import { countsOf, judge, summaryLines, type Results } from './report/report.js';
import { Rng } from './campaign/rng.js';
import { laneSightings } from './secrets/lane-documents.js';
import { ANY_SECTIONS } from './campaign/sections.js';
import { groupSightings, type Corpus } from './secrets/sightings.js';
import { HostLink } from './host/ssh.js';

// The full campaign's results are published (latest.json); a quick run, as CI makes, keeps its own file.
const DEFAULT_OUT = { full: fileURLToPath(new URL('../../../chaos/results/latest.json', import.meta.url)), quick: fileURLToPath(new URL('../../../chaos/results/quick.json', import.meta.url)) };

async function withHost(name: string, run: (link: HostLink) => Promise<void>, variant: Variant = 'base'): Promise<void> {
  const host = await startTestHost({ name, variant });
  const link = new HostLink(host);
  try {
    await run(link);
  } finally {
    await link.close();
    await host.down();
  }
}

async function campaign(options: Options): Promise<Results> {
  helperArtifact();
  const started = Date.now();
  const { sizes } = options;
  const progress = (line: string) => process.stderr.write(`[chaos +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
  const commit = await measuredCommit();
  const results: Results = {
    mode: options.mode,
    seed: options.seed,
    command: `npm run chaos --${options.mode === 'quick' ? ' --quick' : ''} --seed ${options.seed}${options.sections.length < SECTIONS.length ? ` --only ${options.sections.join(',')}` : ''}`,
    ...(commit ? { commit } : {}),
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    sizes,
    sectionsRun: options.sections,
    machine: { cpus: cpus().length, loadAverage: loadavg().map((value) => Math.round(value * 100) / 100) },
    errors: [],
    counts: {},
    sections: {},
    targets: [],
    ok: false,
  };
  const guarded = async (section: SectionName, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      results.errors.push(`${section}: ${error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 4).join(' | ') : String(error)}`);
      progress(`${section} failed: ${String(error)}`);
    }
  };
  const ctx = { sizes, rng: new Rng(options.seed), progress, startedAt: Date.now(), laneCorpora: [] as Corpus[] };
  const runs = ANY_SECTIONS.filter((section) => options.sections.includes(section.name)).map((section) => ({ section, run: section.run(ctx) }));

  // Lanes run in parallel, one test host each; the parts on one lane run one after the other.
  const lanes = new Map<string, { variant?: Variant; parts: { name: SectionName; order: number; go: (link: HostLink) => Promise<void> }[] }>();
  for (const { section, run } of runs)
    section.lanes(sizes).forEach((lane, index) => {
      const entry = lanes.get(lane.host) ?? { ...(lane.variant ? { variant: lane.variant } : {}), parts: [] };
      entry.parts.push({ name: section.name, order: lane.order, go: (link) => run.part(index, link) });
      lanes.set(lane.host, entry);
    });
  const tag = `cx${process.pid % 10_000}`;
  await Promise.all(
    [...lanes].map(([host, { variant, parts }]) => {
      parts.sort((a, b) => a.order - b.order);
      return guarded(parts[0]!.name, () =>
        withHost(
          `${tag}${host}`,
          async (link) => {
            for (const part of parts) await guarded(part.name, () => part.go(link));
          },
          variant,
        ),
      );
    }),
  );
  const sections = results.sections as Record<string, unknown>;
  for (const { section, run } of runs) {
    const summary = run.summarize();
    if (summary !== undefined) sections[section.key] = summary;
  }
  for (const { run } of runs) run.review?.(() => JSON.stringify(results));
  checkLaneDocuments(results, ctx.laneCorpora);
  results.durationMs = Date.now() - started;
  results.counts = countsOf(results.sections);
  results.targets = judge(results.sections, sizes, options.sections);
  results.ok = results.errors.length === 0 && results.targets.every((target) => target.met);
  return results;
}

/** The crash-point and kill lanes' workspace documents: in nothing those lanes kept, nor in the results file. */
function checkLaneDocuments(results: Results, laneCorpora: readonly Corpus[]): void {
  if (laneCorpora.length === 0) return;
  const corpora = [...laneCorpora, { name: 'campaign results file', text: JSON.stringify(results) }];
  const seen = laneSightings(corpora);
  results.laneDocuments = { sightings: seen.length, found: groupSightings(seen), corpora: corpora.map((corpus) => ({ name: corpus.name, bytes: Buffer.byteLength(corpus.text) })) };
  if (seen.length > 0) results.errors.push(`the lanes' workspace document sentinel was seen: ${[...new Set(seen.map((sighting) => sighting.where))].slice(0, 10).join('; ')}`);
  if (corpora.some((corpus) => corpus.name.endsWith('helper audit lines') && corpus.text.trim() === '')) results.errors.push('a lane kept no helper audit line to search');
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), DEFAULT_OUT);
  const results = await campaign(options);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${summaryLines(results).join('\n')}\n  results: ${options.out}\n`);
  return results.ok ? 0 : 1;
}

runCommandLine('chaos', USAGE, main);
