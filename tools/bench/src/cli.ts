// `npm run bench`: boots local test hosts, measures the driver against its baselines (figures a-j),
// writes bench/results/latest.json and prints each figure against its target. `--quick` takes a
// smaller sample; `--only a,c` runs some figures. Every host is torn down at the end, on failure
// and on SIGINT/SIGTERM.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHelperArtifact } from '@occ-ssh/controller';
import { ensureRootfs, NODE_VERSION, startTestHost, type TestHost } from '@occ-ssh/testhost';
import { measureActivation } from './activation.js';
import { measureAnsible } from './ansible.js';
import { measureBytes } from './bytes.js';
import { measureConcurrency } from './concurrency.js';
import { planFor, progress, type BenchContext } from './context.js';
import { measureFleet } from './fleet.js';
import { deployLatencyAgent, measureLatency } from './latency.js';
import { loadAverage } from './machine.js';
import { figureRows, textTable } from './report.js';
import { measureResources } from './resources.js';
import { measureRestart } from './restart.js';
import type { BenchResults, Scenario } from './results.js';
import { SCENARIOS } from './results.js';
import { measureScale } from './scale.js';
import { measureStartup } from './startup.js';

const DEFAULT_OUT = fileURLToPath(new URL('../../../bench/results/latest.json', import.meta.url));
const USAGE = `usage: npm run bench -- [--quick] [--only ${SCENARIOS.join(',')}] [--out FILE]
  a      latency over a new connection (system-ssh) and over reused ones (openssh-mux, ssh2: figure b)
  c      activation overhead         d  full cycle against Ansible (python host)
  e      helper bytes per operation  f  one host, many Agents
  g      a fleet of hosts            h  controller CPU and memory per operation (fleet hosts)
  i      real OpenClaw restart: warm vs cold cache, unit vs plain process, cutover gap
  j      8 concurrent activations on one host vs one
  startup  helper start-up on the host, without ssh`;

interface Args {
  quick: boolean;
  only: Set<Scenario>;
  out: string;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { quick: false, only: new Set(SCENARIOS), out: DEFAULT_OUT };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i] ?? '';
    if (flag === '--quick') args.quick = true;
    else if (flag === '--only') {
      const picked = value().split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = picked.filter((s) => !(SCENARIOS as readonly string[]).includes(s) && s !== 'b');
      if (unknown.length || picked.length === 0) throw new Error(`unknown figure(s) ${unknown.join(',')}\n${USAGE}`);
      args.only = new Set(picked.map((s) => (s === 'b' ? 'a' : s)) as Scenario[]);
    } else if (flag === '--out') args.out = resolve(value());
    else if (flag === '--help' || flag === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  return args;
}

function sshVersion(): string {
  const out = spawnSync('ssh', ['-V'], { encoding: 'utf8' });
  return `${out.stderr ?? ''}${out.stdout ?? ''}`.trim();
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const plan = planFor(args.quick);
  const scratch = mkdtempSync('/tmp/occb-');
  // The openssh-mux transport creates its control directory under os.tmpdir(): keep it in ours.
  process.env.TMPDIR = scratch;
  process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
  const ctx: BenchContext = { plan, scratch };
  const startedAt = new Date();
  const loadAtStart = loadAverage();
  const helper = loadHelperArtifact();
  progress(`${args.quick ? 'quick' : 'full'} run of ${[...args.only].join(', ')}; load average ${loadAtStart.one} ${loadAtStart.five} ${loadAtStart.fifteen} on ${cpus().length} cores`);

  const partial: Partial<BenchResults> & { errors: BenchResults['errors'] } = { errors: [] };
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
  const attempt = async <K extends keyof BenchResults>(scenario: string, key: K, action: () => Promise<BenchResults[K]>) => {
    try {
      partial[key] = await action();
    } catch (error) {
      const message = error instanceof Error ? error.stack ?? error.message : String(error);
      progress(`${scenario} failed: ${message}`);
      partial.errors.push({ scenario, message });
    }
  };
  const wants = (...scenarios: Scenario[]) => scenarios.some((s) => args.only.has(s));

  try {
    await ensureRootfs('base');
    if (wants('d')) await ensureRootfs('python');

    if (wants('startup', 'e', 'a', 'c')) {
      const host = await boot('bench-a');
      // The start-up breakdown reads the latency Agent: deploy it when figure a does not.
      if (wants('startup') && !wants('a')) await deployLatencyAgent(ctx, host);
      if (wants('a')) await attempt('a', 'latency', () => measureLatency(ctx, host));
      if (wants('startup')) await attempt('startup', 'startup', () => measureStartup(ctx, host));
      if (wants('e')) await attempt('e', 'bytes', () => measureBytes(ctx, host));
      if (wants('c')) await attempt('c', 'activation', () => measureActivation(ctx, host));
      await down([host]);
    }
    if (wants('i', 'j')) {
      const host = await boot('bench-ij');
      if (wants('j')) await attempt('j', 'concurrency', () => measureConcurrency(ctx, host));
      if (wants('i')) await attempt('i', 'restart', () => measureRestart(ctx, host));
      await down([host]);
    }
    if (wants('d')) {
      const host = await boot('bench-py', 'python');
      await attempt('d', 'ansible', () => measureAnsible(ctx, host));
      await down([host]);
    }
    if (wants('f')) {
      const host = await boot('bench-sc');
      await attempt('f', 'scale', () => measureScale(ctx, host));
      await down([host]);
    }
    if (wants('g', 'h')) {
      progress(`booting ${plan.fleetHosts} fleet hosts`);
      const fleet = await Promise.all(Array.from({ length: plan.fleetHosts }, (_, i) => boot(`bench-f${i + 1}`)));
      if (wants('g')) await attempt('g', 'fleet', () => measureFleet(ctx, fleet));
      else await attempt('g', 'fleet', () => measureFleet({ ...ctx, plan: { ...plan, fleetReps: 0 } }, fleet));
      if (wants('h')) await attempt('h', 'resources', () => measureResources(ctx, fleet));
      await down(fleet);
    }
  } finally {
    await Promise.allSettled(hosts.map((host) => host.down()));
  }

  if (!wants('g') && partial.fleet) delete partial.fleet;
  const finishedAt = new Date();
  const base: Omit<BenchResults, 'rows'> = {
    schema: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationS: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000),
    plan,
    machine: {
      cpus: cpus().length,
      memoryGiB: Math.round(totalmem() / 1024 ** 3),
      loadAtStart,
      loadAtEnd: loadAverage(),
      controllerNode: process.version,
      sshClient: sshVersion(),
      hostNode: `v${NODE_VERSION}`,
      kernel: release(),
    },
    helper: { sha256: helper.sha256, bytes: helper.bytes.length },
    ...partial,
    errors: partial.errors,
  };
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

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
