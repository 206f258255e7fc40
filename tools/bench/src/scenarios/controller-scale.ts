// One controller, a thousand hosts. Every host is a fake that answers the helper's protocol after a
// fixed delay (hosts/fake-helper-host.ts), so what is measured is the controller alone: how many
// helper runs it has in flight at once against its documented bound (maxConcurrentOperations and the
// runtime reads' share), its CPU per operation and its memory. The ssh processes a real transport adds
// per run in flight are the resources figure's.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { progress, type BenchContext } from '../hosts/context.js';
import { FakeHelperHosts } from '../hosts/fake-helper-host.js';
import { bindingFor, configurationFor, ObservedDriver, timed, type BenchHost } from '../hosts/installation.js';

/** The documented defaults (docs/integration.md): 64 helper runs at once, and a quarter of that for runtime reads. */
const DOCUMENTED_BOUND = 64 + 16;
const HOSTS = 1000;
/** About a helper run over a reused connection. */
const ANSWER_AFTER_MS = 150;
const MiB = 1024 * 1024;

interface Round {
  operation: string;
  calls: number;
  wallMs: number;
  maxInFlight: number;
  cpuPerOperationMs: number;
}

export interface ControllerScaleResult {
  hosts: number;
  answerAfterMs: number;
  documentedBound: number;
  rounds: Round[];
  /** This process's RSS before the Installation was loaded, with the driver idle, and its peak during the rounds. */
  rssMiB: { before: number; idle: number; peak: number };
}

const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

function fakeHosts(ctx: BenchContext): Record<string, BenchHost> {
  const files = { identityFile: join(ctx.scratch, 'fake-id'), knownHostsFile: join(ctx.scratch, 'fake-known-hosts') };
  writeFileSync(files.identityFile, '', { mode: 0o600 });
  writeFileSync(files.knownHostsFile, '', { mode: 0o600 });
  // One documentation address, a port per host: nothing is dialled (the executor answers in process),
  // and the controller keys its per-host bound by address and port.
  const host = (i: number): BenchHost => ({
    name: `h${i}`,
    address: '203.0.113.10',
    port: 20000 + i,
    ...files,
    nodePath: '/usr/bin/node',
    openclawPath: '/opt/openclaw/openclaw.mjs',
    fixtureGatewayPath: '/opt/fixture-gateway/gateway.cjs',
  });
  return Object.fromEntries(Array.from({ length: HOSTS }, (_, i) => [`h${String(i).padStart(4, '0')}`, host(i)]));
}

export async function measureControllerScale(ctx: BenchContext): Promise<ControllerScaleResult> {
  const before = process.memoryUsage().rss;
  const hosts = fakeHosts(ctx);
  const fake = new FakeHelperHosts(ANSWER_AFTER_MS);
  const observed = new ObservedDriver(configurationFor(hosts, {}), { executor: fake });
  const idle = process.memoryUsage().rss;
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const rounds: Round[] = [];
  const round = async (operation: string, call: (name: string) => Promise<unknown>) => {
    progress(`controller: ${operation} on ${HOSTS} fake hosts at once`);
    fake.maxInFlight = 0;
    const cpu = process.cpuUsage();
    const { ms } = await timed(() => Promise.all(Object.keys(hosts).map(call)));
    const used = process.cpuUsage(cpu);
    rounds.push({ operation, calls: HOSTS, wallMs: Math.round(ms), maxInFlight: fake.maxInFlight, cpuPerOperationMs: Math.round(((used.user + used.system) / 1000 / HOSTS) * 100) / 100 });
  };
  try {
    const { driver } = observed;
    await round('ensure-namespace', (name) => driver.ensureNamespace(bindingFor(name, 'a').namespace));
    await round('inventory', (name) => driver.inventory(name));
  } finally {
    clearInterval(sampler);
    await observed.close();
  }
  return {
    hosts: HOSTS,
    answerAfterMs: ANSWER_AFTER_MS,
    documentedBound: DOCUMENTED_BOUND,
    rounds,
    rssMiB: { before: mib(before), idle: mib(idle), peak: mib(peak) },
  };
}
