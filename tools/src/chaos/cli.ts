// `npm run chaos -- [--quick] [--seed N]`: boots real test hosts, runs every section of the
// campaign (in parallel lanes, one host each), writes chaos/results/latest.json, prints the counts
// and exits nonzero when any target is missed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestHost } from '../testhost/index.js';
import { runBadInput } from './bad-input.js';
import { faultLane } from './host-faults.js';
import { runHostile, type HostileResult } from './hostile.js';
import { killLane } from './kill-trials.js';
import { helperArtifact } from './ops.js';
import { parseOptions, USAGE, UsageError, type Options, type Section } from './options.js';
import { runRaces } from './races.js';
import { countsOf, judge, summarizeBadInput, summarizeTrials, summaryLines, type Results } from './report.js';
import { Rng } from './rng.js';
import { runSecrets } from './secrets.js';
import type { Corpus, Sighting } from './sightings.js';
import { HostLink } from './ssh.js';
import type { TrialRecord } from './trial.js';

const DEFAULT_OUT = fileURLToPath(new URL('../../../chaos/results/latest.json', import.meta.url));

async function withHost(name: string, run: (link: HostLink) => Promise<void>): Promise<void> {
  const host = await startTestHost({ name });
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
  const rng = new Rng(options.seed);
  const { sizes } = options;
  const progress = (line: string) => process.stderr.write(`[chaos +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
  const results: Results = {
    mode: options.mode,
    seed: options.seed,
    command: `npm run chaos --${options.mode === 'quick' ? ' --quick' : ''} --seed ${options.seed}${options.sections.length < 6 ? ` --only ${options.sections.join(',')}` : ''}`,
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
  const has = (section: Section) => options.sections.includes(section);
  const guarded = async (section: Section, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      results.errors.push(`${section}: ${error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 4).join(' | ') : String(error)}`);
      progress(`${section} failed: ${String(error)}`);
    }
  };
  const tag = `cx${process.pid % 10_000}`;
  let scanSecrets: ((corpora: Corpus[]) => Sighting[]) | undefined;
  const lanes: Promise<void>[] = [];

  if (has('kill')) {
    const records: TrialRecord[][] = [];
    const calibration: Record<string, number>[] = [];
    const killStarted = Date.now();
    const perLane = Math.ceil(sizes.killTrials / sizes.killLanes);
    let done = 0;
    lanes.push(
      Promise.all(
        Array.from({ length: sizes.killLanes }, (_, lane) =>
          guarded('kill', () =>
            withHost(`${tag}k${lane}`, async (link) => {
              const result = await killLane(link, rng.fork(`kill-${lane}`), perLane, `k${lane}`, (record) => {
                done += 1;
                const bad = record.violations.length + record.problems.length > 0 ? ` FAILED: ${[...record.violations.map((v) => v.message), ...record.problems].join('; ')}` : '';
                if (bad || done % 10 === 0) progress(`kill ${done}/${sizes.killTrials}: ${record.operation} cut at ${record.atMs}/${record.measuredMs} ms (${record.effect})${bad}`);
              });
              records[lane] = result.records;
              calibration[lane] = result.durations;
            }),
          ),
        ),
      ).then(() => {
        const all = records.flat().filter(Boolean);
        if (all.length > 0) results.sections.kill = { ...summarizeTrials(all, (record) => record.operation), durationMs: Date.now() - killStarted, calibrationMs: calibration.filter(Boolean) };
      }),
    );
  }

  if (has('faults')) {
    lanes.push(
      guarded('faults', () =>
        withHost(`${tag}f`, async (link) => {
          const t0 = Date.now();
          const plan = { helperKills: sizes.helperKills, sshdRestarts: sizes.sshdRestarts, reboots: sizes.reboots, unready: sizes.unready };
          const { records } = await faultLane(link, rng.fork('faults'), plan, (record) => {
            const bad = record.violations.length + record.problems.length > 0 ? ` FAILED: ${[...record.violations.map((v) => v.message), ...record.problems].join('; ')}` : '';
            progress(`faults: ${record.fault} at ${record.atMs}/${record.measuredMs} ms (${record.effect})${bad}`);
          });
          results.sections.faults = { ...summarizeTrials(records, (record) => record.fault), durationMs: Date.now() - t0 };
        }),
      ),
    );
  }

  if (has('hostile')) {
    const found: HostileResult[][] = [];
    const t0 = Date.now();
    lanes.push(
      Promise.all(
        Array.from({ length: sizes.hostileLanes }, (_, share) =>
          guarded('hostile', () =>
            withHost(`${tag}h${share}`, async (link) => {
              found[share] = await runHostile(link, progress, { coreOnly: sizes.hostileCoreOnly, share, of: sizes.hostileLanes });
            }),
          ),
        ),
      ).then(() => {
        const all = found.flat().filter(Boolean);
        if (all.length === 0) return;
        const refusing = all.filter((result) => result.kind === 'refused');
        results.sections.hostile = {
          cases: all.length,
          refused: refusing.filter((result) => result.refused).length,
          unchanged: refusing.filter((result) => result.unchanged).length,
          targetsUnchanged: all.filter((result) => result.targetsUnchanged).length,
          notFollowed: all.filter((result) => result.kind === 'not-followed' && result.problems.length === 0).length,
          results: all,
          durationMs: Date.now() - t0,
        };
      }),
    );
  }

  if (has('races')) {
    lanes.push(
      guarded('races', () =>
        withHost(`${tag}r`, async (link) => {
          const t0 = Date.now();
          const plan = { allocations: sizes.allocations, controllers: sizes.controllers, roundsPerBatch: sizes.roundsPerBatch, prepareDeleteRounds: sizes.prepareDeleteRounds };
          results.sections.races = { ...(await runRaces(link, rng.fork('races'), plan, progress)), durationMs: Date.now() - t0 };
        }),
      ),
    );
  }

  if (has('bad-input')) {
    lanes.push(
      guarded('bad-input', () =>
        withHost(`${tag}b`, async (link) => {
          const t0 = Date.now();
          const found = await runBadInput(link, rng.fork('bad-input'), { randomConfigs: sizes.randomConfigs, randomArguments: sizes.randomArguments, batchSize: sizes.badInputBatch }, progress);
          results.sections.badInput = { ...summarizeBadInput(found), durationMs: Date.now() - t0 };
        }),
      ),
    );
  }

  if (has('secrets')) {
    lanes.push(
      guarded('secrets', () =>
        withHost(`${tag}s`, async (link) => {
          const t0 = Date.now();
          const { result, scan } = await runSecrets(link, rng.fork('secrets'), progress);
          scanSecrets = scan;
          const { sightings, ...rest } = result;
          results.sections.secrets = { ...rest, sightings: sightings.filter((s) => !s.design).length, designSightings: sightings.filter((s) => s.design).length, found: sightings, durationMs: Date.now() - t0 };
        }),
      ),
    );
  }

  await Promise.all(lanes);
  // The campaign's own records (every error message and state listing it kept) must not carry the secrets either.
  if (scanSecrets && results.sections.secrets) {
    const own = scanSecrets([{ name: 'campaign results file', text: JSON.stringify(results) }]);
    results.sections.secrets.found.push(...own);
    results.sections.secrets.sightings += own.filter((s) => !s.design).length;
    results.sections.secrets.corpora.push({ name: 'campaign results file', bytes: JSON.stringify(results).length });
  }
  results.durationMs = Date.now() - started;
  results.counts = countsOf(results.sections);
  results.targets = judge(results.sections, sizes, options.sections);
  results.ok = results.errors.length === 0 && results.targets.every((target) => target.met);
  return results;
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2), DEFAULT_OUT);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(error.message === 'help' ? `${USAGE}\n` : `chaos: ${error.message}\n\n${USAGE}\n`);
      return error.message === 'help' ? 0 : 2;
    }
    throw error;
  }
  const results = await campaign(options);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${summaryLines(results).join('\n')}\n  results: ${options.out}\n`);
  return results.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
