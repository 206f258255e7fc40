// `npm run chaos -- [--quick] [--seed N]`: boots real test hosts, runs every section of the
// campaign (in parallel lanes, one host each), writes chaos/results/latest.json, prints the counts
// and exits nonzero when any target is missed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestHost, type Variant } from '@occ-ssh/testhost';
import { crashLane, CRASH_OPERATIONS, type CrashRecord } from './crash-points.js';
import { runBadInput } from './bad-input.js';
import { faultLane, waitLane } from './host-faults.js';
import { runHostile, type HostileResult } from './hostile.js';
import { killLane } from './kill-trials.js';
import { helperArtifact, measuredCommit, runCommandLine } from '@occ-ssh/test-support';
import { parseOptions, SECTIONS, USAGE, type Options, type Section } from './options.js';
import { newRaceResult, runAllocations, runPrepareVsDelete } from './races.js';
import { countsOf, judge, summarizeBadInput, summarizeCrashes, summarizeTrials, summaryLines, type Results } from './report.js';
import { Rng } from './rng.js';
import { laneSightings, runSecrets } from './secrets.js';
import { runTenants } from './tenants.js';
import { groupSightings, type Corpus, type Sighting } from './sightings.js';
import { HostLink } from './ssh.js';
import type { TrialRecord } from './trial.js';

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
  const rng = new Rng(options.seed);
  const { sizes } = options;
  const progress = (line: string) => process.stderr.write(`[chaos +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
  const commit = measuredCommit();
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
  const racePlan = { allocations: sizes.allocations, controllers: sizes.controllers, roundsPerBatch: sizes.roundsPerBatch, prepareDeleteRounds: sizes.prepareDeleteRounds };
  const failedTrial = (record: TrialRecord) => (record.violations.length + record.problems.length > 0 ? ` FAILED: ${[...record.violations.map((v) => v.message), ...record.problems].join('; ')}` : '');

  // Each section, run on the host of its lane.
  const killRecords: TrialRecord[][] = [];
  const laneCorpora: Corpus[] = [];
  const calibration: Record<string, number>[] = [];
  const killStarted = Date.now();
  let killed = 0;
  let killEnded = killStarted;
  const killSection = (lane: number) => async (link: HostLink) => {
    const perLane = Math.ceil(sizes.killTrials / sizes.killLanes);
    const result = await killLane(link, rng.fork(`kill-${lane}`), perLane, `k${lane}`, Math.round((lane * 9) / sizes.killLanes), (record) => {
      killed += 1;
      const bad = failedTrial(record);
      if (bad || killed % 10 === 0) progress(`kill ${killed}/${sizes.killTrials}: ${record.operation} cut at ${record.atMs}/${record.measuredMs} ms (${record.effect})${bad}`);
    });
    killRecords[lane] = result.records;
    laneCorpora.push(...result.corpora);
    calibration[lane] = result.durations;
    killEnded = Math.max(killEnded, Date.now());
  };
  const crashSection = (section: 'crash-points' | 'injected-errors') => async (link: HostLink) => {
    const t0 = Date.now();
    const step = sizes.crashPointStep;
    const onRecord = (record: CrashRecord) => {
      const bad = failedTrial(record);
      if (bad || !record.exact)
        progress(
          `${section}: ${record.operation} (${record.lane}) ${record.injection} at ${record.point.program} ${record.point.what}: hit ${record.hit ? `${record.hit.program} ${record.hit.what}` : 'nothing'}${bad}`,
        );
    };
    const plan = { step, lanes: section === 'crash-points' ? (['helper', 'children'] as const) : (['helper'] as const), operations: CRASH_OPERATIONS };
    const { counts, records, corpora } = await crashLane(link, plan, { crash: section === 'crash-points', errors: section === 'injected-errors' }, progress, onRecord);
    laneCorpora.push(...corpora);
    const summary = summarizeCrashes(counts, records, step, Date.now() - t0);
    if (section === 'crash-points') results.sections.crashPoints = summary;
    else results.sections.injectedErrors = summary;
  };
  const sections: Record<Exclude<Section, 'kill' | 'crash-points' | 'injected-errors'>, (link: HostLink) => Promise<void>> = {
    faults: async (link) => {
      const t0 = Date.now();
      const plan = { helperKills: sizes.helperKills, sshdRestarts: sizes.sshdRestarts, reboots: sizes.reboots, unready: sizes.unready };
      const report = (record: TrialRecord) => progress(`faults: ${record.fault} at ${record.atMs}/${record.measuredMs} ms (${record.effect})${failedTrial(record)}`);
      const { records } = await faultLane(link, rng.fork('faults'), plan, report);
      records.push(...(await waitLane(link, rng.fork('wait'), report)));
      results.sections.faults = { ...summarizeTrials(records, (record) => record.fault), durationMs: Date.now() - t0 };
    },
    hostile: async (link) => {
      const t0 = Date.now();
      const found: HostileResult[] = await runHostile(link, progress, { coreOnly: sizes.hostileCoreOnly });
      const refusing = found.filter((result) => result.kind === 'refused');
      results.sections.hostile = {
        cases: found.length,
        refused: refusing.filter((result) => result.refused).length,
        unchanged: refusing.filter((result) => result.unchanged).length,
        targetsUnchanged: found.filter((result) => result.targetsUnchanged).length,
        notFollowed: found.filter((result) => result.kind === 'not-followed' && result.problems.length === 0).length,
        results: found,
        durationMs: Date.now() - t0,
      };
    },
    races: async (link) => {
      const t0 = Date.now();
      const race = (results.sections.races ??= { ...newRaceResult(), durationMs: 0 });
      await runAllocations(link, rng.fork('races'), racePlan, race, progress);
      race.durationMs += Date.now() - t0;
    },
    'bad-input': async (link) => {
      const t0 = Date.now();
      const found = await runBadInput(link, rng.fork('bad-input'), { randomConfigs: sizes.randomConfigs, randomArguments: sizes.randomArguments, batchSize: sizes.badInputBatch }, progress);
      results.sections.badInput = { ...summarizeBadInput(found), durationMs: Date.now() - t0 };
    },
    secrets: async (link) => {
      const t0 = Date.now();
      const { result, scan } = await runSecrets(link, rng.fork('secrets'), progress);
      scanSecrets = scan;
      const { sightings, ...rest } = result;
      results.sections.secrets = { ...rest, sightings: sightings.length, found: groupSightings(sightings), durationMs: Date.now() - t0 };
    },
    'hostile-tenants': async (link) => {
      const plan = { lockTrials: sizes.tenantLockTrials, trickleTrials: sizes.tenantTrickleTrials, treeDepth: sizes.tenantTreeDepth, treeFiles: sizes.tenantTreeFiles };
      const tenantRng = rng.fork('hostile-tenants');
      results.sections.hostileTenants = await runTenants(link, plan, (length) => tenantRng.hex(length), progress);
    },
  };

  // Prepare racing delete-namespace: the second part of the races section, on the lane the sizes choose.
  const prepareVsDelete = async (link: HostLink) => {
    const t0 = Date.now();
    const race = (results.sections.races ??= { ...newRaceResult(), durationMs: 0 });
    await runPrepareVsDelete(link, rng.fork('prepare-vs-delete'), racePlan, race, progress);
    race.durationMs += Date.now() - t0;
  };

  // Lanes run in parallel, one test host each; sections of a lane run one after the other.
  const plan: { host: string; variant?: Variant; run: [Section, (link: HostLink) => Promise<void>][] }[] = [
    ...Array.from({ length: sizes.killLanes }, (_, lane) => ({ host: `k${lane}`, variant: 'strace' as const, run: [['kill', killSection(lane)]] as [Section, (link: HostLink) => Promise<void>][] })),
    {
      host: 'f',
      run: [['faults', sections.faults], ['secrets', sections.secrets], ...(sizes.prepareDeleteLane === 'faults' ? [['races', prepareVsDelete] as [Section, (link: HostLink) => Promise<void>]] : [])],
    },
    {
      host: 'h',
      run: [
        ['hostile', sections.hostile],
        ['bad-input', sections['bad-input']],
      ],
    },
    { host: 'r', run: [['races', sections.races], ...(sizes.prepareDeleteLane === 'races' ? [['races', prepareVsDelete] as [Section, (link: HostLink) => Promise<void>]] : [])] },
    // strace runs only on hosts of the strace variant; the helper itself is the shipped artifact.
    { host: 'c', variant: 'strace', run: [['crash-points', crashSection('crash-points')]] },
    { host: 'e', variant: 'strace', run: [['injected-errors', crashSection('injected-errors')]] },
    // Compromised gateways stall or flood a whole host: on a host of their own, beside every other lane.
    { host: 't', run: [['hostile-tenants', sections['hostile-tenants']]] },
  ];
  const lanes = plan
    .map((lane) => ({ ...lane, run: lane.run.filter(([section]) => has(section)) }))
    .filter((lane) => lane.run.length > 0)
    .map((lane) =>
      guarded(lane.run[0]![0], () =>
        withHost(
          `${tag}${lane.host}`,
          async (link) => {
            for (const [section, run] of lane.run) await guarded(section, () => run(link));
          },
          lane.variant,
        ),
      ),
    );
  await Promise.all(lanes);
  const allKills = killRecords.flat().filter(Boolean);
  if (allKills.length > 0) results.sections.kill = { ...summarizeTrials(allKills, (record) => record.operation), durationMs: killEnded - killStarted, calibrationMs: calibration.filter(Boolean) };
  // The campaign's own records (every error message and state listing it kept) must not carry the secrets either.
  if (scanSecrets && results.sections.secrets) {
    const own = scanSecrets([{ name: 'campaign results file', text: JSON.stringify(results) }]);
    results.sections.secrets.found.push(...groupSightings(own));
    results.sections.secrets.sightings += own.length;
    results.sections.secrets.corpora.push({ name: 'campaign results file', bytes: JSON.stringify(results).length });
  }
  // The crash-point and kill lanes' workspace documents: in nothing those lanes kept, nor in this file.
  if (laneCorpora.length > 0) {
    const corpora = [...laneCorpora, { name: 'campaign results file', text: JSON.stringify(results) }];
    const seen = laneSightings(corpora);
    results.laneDocuments = { sightings: seen.length, found: groupSightings(seen), corpora: corpora.map((corpus) => ({ name: corpus.name, bytes: Buffer.byteLength(corpus.text) })) };
    if (seen.length > 0) results.errors.push(`the lanes' workspace document sentinel was seen: ${[...new Set(seen.map((sighting) => sighting.where))].slice(0, 10).join('; ')}`);
    if (corpora.some((corpus) => corpus.name.endsWith('helper audit lines') && corpus.text.trim() === '')) results.errors.push('a lane kept no helper audit line to search');
  }
  results.durationMs = Date.now() - started;
  results.counts = countsOf(results.sections);
  results.targets = judge(results.sections, sizes, options.sections);
  results.ok = results.errors.length === 0 && results.targets.every((target) => target.met);
  return results;
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
