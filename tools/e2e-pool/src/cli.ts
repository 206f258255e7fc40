// `npm run e2e -- [--concurrency N] [--list] [path filter ...]`: every project's real-host test files
// in one pool, longest first, N at a time (each file boots its own hosts; at most three that start
// the real OpenClaw, and none of those before the file E2E_POOL_GATE names exists, when it names one:
// real-openclaw.ts), and the files named in
// second-image.ts again on the Debian 13 / Node 26 image (labelled `[debian13-node26]`). Each file's node:test
// report is printed whole when it ends and kept in dist/e2e-pool/logs; the closing table names the
// failing files, and the exit status is nonzero if any failed.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { discoverJobs, longestFirst, selectJobs, withSecondImage, type Job } from './jobs.js';
import { samplePeaks } from './machine.js';
import { runPool } from './pool.js';
import { realOpenClawRule } from './real-openclaw.js';
import { runFile, type FileOutcome } from './run-file.js';
import { addCounts, failedTests, formatCounts, noCounts, type Counts } from './summary.js';

/**
 * Measured on the 2-core, 24 GiB CI machine: three at a time took 2,778 s for 8,315 s of file time;
 * five took 2,485 s for 12,407 s, at a load up to 39, and the load made three files fail their own
 * bounds. The files share the CPU more than they wait: four is the width between the two.
 */
const DEFAULT_CONCURRENCY = 4;
const USAGE = 'usage: npm run e2e -- [--concurrency N] [--list] [path filter ...]';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const LOG_DIR = path.join(ROOT, 'dist/e2e-pool/logs');

interface Options {
  concurrency: number;
  list: boolean;
  filters: string[];
}

export function parseArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Options {
  const options: Options = { concurrency: Number(env['E2E_POOL_CONCURRENCY'] || DEFAULT_CONCURRENCY), list: false, filters: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--list') options.list = true;
    else if (arg === '--concurrency') options.concurrency = Number(args[++i]);
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}\n${USAGE}`);
    else options.filters.push(arg);
  }
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new Error(`--concurrency (or E2E_POOL_CONCURRENCY) must be a whole number of at least 1\n${USAGE}`);
  return options;
}

const seconds = (s: number) => `${s.toFixed(1).padStart(7)} s`;

/** The file's CPU seconds (its hosts included) beside its wall time, where they were measured. */
const cpuColumn = (o: FileOutcome) => (o.cpuSeconds === undefined ? '' : `  cpu ${seconds(o.cpuSeconds)}`);
const cpuTotal = (outcomes: readonly FileOutcome[]) => (outcomes.some((o) => o.cpuSeconds !== undefined) ? `, CPU ${seconds(outcomes.reduce((s, o) => s + (o.cpuSeconds ?? 0), 0)).trim()}` : '');

/** A failing file's line, then each failed test with the start of its error: the log may not outlive the run. */
const failingFile = (o: FileOutcome) => [
  `[e2e-pool]   ${o.job.label}: ${o.problem} (log ${path.relative(ROOT, o.logFile)})`,
  ...failedTests(o.output).map((t) => `[e2e-pool]     not ok: ${t.name}: ${t.error}`),
];

function report(outcomes: readonly FileOutcome[], wallSeconds: number, concurrency: number, peaks: ReturnType<ReturnType<typeof samplePeaks>>): string[] {
  const byProject = new Map<string, Counts>();
  for (const o of outcomes) byProject.set(o.job.project, addCounts(byProject.get(o.job.project) ?? noCounts(), o.counts ?? noCounts()));
  const failed = outcomes.filter((o) => !o.ok);
  return [
    '',
    `[e2e-pool] ${outcomes.length} files, ${concurrency} at a time, in ${seconds(wallSeconds).trim()} (sum of file times ${seconds(outcomes.reduce((s, o) => s + o.seconds, 0)).trim()}${cpuTotal(outcomes)})`,
    `[e2e-pool] peak 1-minute load ${peaks.load1.toFixed(1)}, peak memory in use ${peaks.usedMemGiB.toFixed(1)} of ${peaks.totalMemGiB.toFixed(1)} GiB`,
    ...[...outcomes]
      .sort((a, b) => b.seconds - a.seconds)
      .map((o) => `[e2e-pool] ${o.ok ? 'ok  ' : 'FAIL'} ${seconds(o.seconds)}${cpuColumn(o)}  ${o.job.label}${o.problem ? `  (${o.problem})` : ''}`),
    ...[...byProject].map(([project, counts]) => `[e2e-pool] ${project}: ${formatCounts(counts)}`),
    ...(failed.length ? ['[e2e-pool] failing files:', ...failed.flatMap(failingFile)] : ['[e2e-pool] no file failed']),
  ];
}

/** A file and its run on the second image boot hosts of the same names: the pool never overlaps them. */
const sameFile = (job: Job) => `${job.project}\0${job.argv.join(' ')}`;

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const jobs = longestFirst(selectJobs(withSecondImage(discoverJobs(ROOT)), options.filters));
  if (jobs.length === 0) throw new Error(`no real-host test file matches ${options.filters.join(' ')}`);
  if (options.list) {
    for (const job of jobs) process.stdout.write(`${seconds(job.weight)}  ${job.label}\n`);
    return 0;
  }
  const stopSampling = samplePeaks();
  const started = Date.now();
  const outcomes = await runPool(
    jobs,
    options.concurrency,
    async (job) => {
      process.stdout.write(`[e2e-pool] start ${job.label}\n`);
      const outcome = await runFile(ROOT, job, LOG_DIR);
      process.stdout.write(
        `\n===== ${job.label} =====\n${outcome.output.trimEnd()}\n===== ${outcome.ok ? 'ok' : 'FAIL'} in ${seconds(outcome.seconds).trim()}${cpuColumn(outcome)}: ${job.label}${outcome.problem ? ` (${outcome.problem})` : ''} =====\n`,
      );
      return outcome;
    },
    { keyOf: sameFile, canStart: realOpenClawRule(process.env['E2E_POOL_GATE']) },
  );
  process.stdout.write(`${report(outcomes, (Date.now() - started) / 1000, options.concurrency, stopSampling()).join('\n')}\n`);
  return outcomes.every((o) => o.ok) ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    },
  );
}
