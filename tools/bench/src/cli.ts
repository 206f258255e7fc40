// `npm run bench`: boots local test hosts, measures the driver against its baselines, writes
// bench/results/latest.json and prints each figure against its target. `--quick` takes a smaller
// sample; `--only latency,activation` runs some figures. Every host is torn down at the end, on failure
// and on SIGINT/SIGTERM.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHelperArtifact } from '@occ-ssh/controller/internal';
import { collect } from '@occ-ssh/ssh-client';
import { measuredCommit, namesFrom, parseFlags, runCommandLine, UsageError } from '@occ-ssh/test-support';
import { ensureRootfs, NODE_VERSION, startTestHost, type TestHost } from '@occ-ssh/testhost';
import { measureActivation } from './scenarios/activation.js';
import { measureAnsible } from './scenarios/ansible.js';
import { measureBytes } from './scenarios/bytes.js';
import { measureConcurrency } from './scenarios/concurrency.js';
import { measureControllerScale } from './scenarios/controller-scale.js';
import { planFor, progress, type BenchContext } from './hosts/context.js';
import { measureFleet } from './scenarios/fleet.js';
import { deployLatencyAgent, measureLatency } from './scenarios/latency.js';
import { loadAverage } from './hosts/machine.js';
import { figureRows } from './report/figure-rows.js';
import { textTable } from './report/figure-table.js';
import { measureResources } from './scenarios/resources.js';
import { measureRestart } from './scenarios/restart.js';
import type { BenchResults, Scenario } from './report/results.js';
import { SCENARIOS } from './report/results.js';
import { measureScale } from './scenarios/scale.js';
import { measureStartup } from './scenarios/startup.js';

const DEFAULT_OUT = fileURLToPath(new URL('../../../bench/results/latest.json', import.meta.url));
const USAGE = `usage: npm run bench -- [--quick] [--only ${SCENARIOS.join(',')}] [--out FILE]
  startup      helper start-up on the host, without ssh
  bytes        helper bytes per operation
  latency      latency over a new connection (system-ssh) and over reused ones (openssh-mux, ssh2)
  activation   activation overhead
  ansible      full cycle against Ansible (python host)
  scale        one host, many Agents
  fleet        a fleet of hosts
  resources    controller CPU and memory per operation (fleet hosts)
  restart      real OpenClaw restart: warm vs cold cache, unit vs plain process, cutover gap
  concurrency  8 concurrent activations on one host vs one
  controller   one controller, 1,000 fake hosts answering the helper's protocol (no host booted)`;

interface Args {
  quick: boolean;
  only: Set<Scenario>;
  out: string;
}

function parseCommandLine(argv: readonly string[]): Args {
  const values = parseFlags(argv, { quick: { type: 'boolean', default: false }, only: { type: 'string' }, out: { type: 'string' } });
  if (values.help) throw new UsageError('help');
  return {
    quick: values.quick,
    only: new Set(values.only === undefined ? SCENARIOS : namesFrom('only', values.only, SCENARIOS)),
    out: values.out === undefined ? DEFAULT_OUT : resolve(values.out),
  };
}

async function sshVersion(): Promise<string> {
  const out = await collect('ssh', ['-V'], { timeoutMs: 10_000 });
  return `${out.stderrHead}${out.stdout}`.trim();
}

/** The figures measured so far, and the errors of those that failed. */
type Measured = Partial<BenchResults> & { errors: BenchResults['errors'] };

/** Boots the hosts each group of figures needs, measures the figures asked for, and tears every host down. */
async function measureAll(args: Args, ctx: BenchContext): Promise<Measured> {
  const { plan } = ctx;
  const partial: Measured = { errors: [] };
  const hosts: TestHost[] = [];
  const boot = async (name: string, variant: 'base' | 'python' = 'base') => {
    const host = await startTestHost({ name, variant });
    hosts.push(host);
    return host;
  };
  const down = async (list: readonly TestHost[]) => {
    await Promise.all(list.map((host) => host.down()));
    for (const host of list) hosts.splice(hosts.indexOf(host), 1);
  };
  const attempt = async <K extends Scenario>(scenario: K, action: () => Promise<BenchResults[K]>) => {
    try {
      partial[scenario] = await action();
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      progress(`${scenario} failed: ${message}`);
      partial.errors.push({ scenario, message });
    }
  };
  const wants = (...scenarios: Scenario[]) => scenarios.some((s) => args.only.has(s));

  try {
    await ensureRootfs('base');
    if (wants('ansible')) await ensureRootfs('python');

    if (wants('startup', 'bytes', 'latency', 'activation')) {
      const host = await boot('bench-ops');
      // The start-up breakdown reads the latency Agent: deploy it when the latency figure does not.
      if (wants('startup') && !wants('latency')) await deployLatencyAgent(ctx, host);
      if (wants('latency')) await attempt('latency', () => measureLatency(ctx, host));
      if (wants('startup')) await attempt('startup', () => measureStartup(ctx, host));
      if (wants('bytes')) await attempt('bytes', () => measureBytes(ctx, host));
      if (wants('activation')) await attempt('activation', () => measureActivation(ctx, host));
      await down([host]);
    }
    if (wants('restart', 'concurrency')) {
      const host = await boot('bench-gw');
      if (wants('concurrency')) await attempt('concurrency', () => measureConcurrency(ctx, host));
      if (wants('restart')) await attempt('restart', () => measureRestart(ctx, host));
      await down([host]);
    }
    if (wants('ansible')) {
      const host = await boot('bench-py', 'python');
      await attempt('ansible', () => measureAnsible(ctx, host));
      await down([host]);
    }
    if (wants('controller')) await attempt('controller', () => measureControllerScale(ctx));
    if (wants('scale')) {
      const host = await boot('bench-sc');
      await attempt('scale', () => measureScale(ctx, host));
      await down([host]);
    }
    if (wants('fleet', 'resources')) {
      progress(`booting ${plan.fleetHosts} fleet hosts`);
      const fleet = await Promise.all(Array.from({ length: plan.fleetHosts }, (_, i) => boot(`bench-f${i + 1}`)));
      if (wants('fleet')) await attempt('fleet', () => measureFleet(ctx, fleet));
      else await attempt('fleet', () => measureFleet({ ...ctx, plan: { ...plan, fleetReps: 0 } }, fleet));
      if (wants('resources')) await attempt('resources', () => measureResources(ctx, fleet));
      await down(fleet);
    }
  } finally {
    await Promise.allSettled(hosts.map((host) => host.down()));
  }

  if (!wants('fleet') && partial.fleet) delete partial.fleet;
  return partial;
}

/** The results file without its rows: the run, the machine, the helper and every figure measured. */
async function resultsOf(
  ctx: BenchContext,
  run: { startedAt: Date; commit: Awaited<ReturnType<typeof measuredCommit>>; loadAtStart: ReturnType<typeof loadAverage>; helper: { sha256: string; bytes: { length: number } } },
  partial: Measured,
): Promise<Omit<BenchResults, 'rows'>> {
  const { startedAt, commit, loadAtStart, helper } = run;
  const finishedAt = new Date();
  return {
    schema: 1,
    ...(commit ? { commit } : {}),
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationS: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000),
    plan: ctx.plan,
    machine: {
      cpus: cpus().length,
      memoryGiB: Math.round(totalmem() / 1024 ** 3),
      loadAtStart,
      loadAtEnd: loadAverage(),
      controllerNode: process.version,
      sshClient: await sshVersion(),
      hostNode: `v${NODE_VERSION}`,
      kernel: release(),
    },
    helper: { sha256: helper.sha256, bytes: helper.bytes.length },
    ...partial,
    errors: partial.errors,
  };
}

async function main(): Promise<number> {
  const args = parseCommandLine(process.argv.slice(2));
  const plan = planFor(args.quick);
  const scratch = mkdtempSync('/tmp/occb-');
  // The openssh-mux transport creates its control directory under os.tmpdir(): keep it in ours.
  process.env.TMPDIR = scratch;
  process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
  const ctx: BenchContext = { plan, scratch };
  const startedAt = new Date();
  const commit = await measuredCommit();
  const loadAtStart = loadAverage();
  const helper = loadHelperArtifact();
  progress(`${args.quick ? 'quick' : 'full'} run of ${[...args.only].join(', ')}; load average ${loadAtStart.one} ${loadAtStart.five} ${loadAtStart.fifteen} on ${cpus().length} cores`);

  const partial = await measureAll(args, ctx);
  const base = await resultsOf(ctx, { startedAt, commit, loadAtStart, helper }, partial);
  const results: BenchResults = { ...base, rows: figureRows(base) };
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  const load = results.machine;
  process.stdout.write(
    `\n${textTable(results.rows)}\n\nload average ${load.loadAtStart.one}/${load.loadAtStart.five}/${load.loadAtStart.fifteen} at start, ${load.loadAtEnd.one}/${load.loadAtEnd.five}/${load.loadAtEnd.fifteen} at end, ${load.cpus} cores; ${results.durationS} s\nwrote ${args.out}\n`,
  );
  if (results.errors.length) process.stdout.write(`${results.errors.length} figure(s) failed: ${results.errors.map((e) => e.scenario).join(', ')}\n`);
  return results.errors.length ? 1 : 0;
}

runCommandLine('bench', USAGE, main);
