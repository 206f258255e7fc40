// Controller CPU and memory per in-flight operation. Batches of read-only
// verify-revision calls spread over the fleet hosts run at a fixed concurrency. CPU counts this
// process, its ssh clients (reaped or live) and the transport's daemonised ssh masters (found by
// the run's private TMPDIR in their command line); a second, sampled batch gives memory.
import { join } from 'node:path';
import { progress, type BenchContext } from '../hosts/context.js';
import { fleetBindings, fleetNamespaces } from './fleet.js';
import { configurationFor, mergedKnownHosts, ObservedDriver, revisionFor, TRANSPORTS, type BenchHost, type Transport } from '../hosts/installation.js';
import { controllerFootprint, type ControllerFootprint } from '../hosts/machine.js';
import { median } from '../report/stats.js';

interface ConcurrencyFootprint {
  inFlight: number;
  operations: number;
  wallMs: number;
  /** Controller-side CPU per operation: this process + ssh clients + ssh masters. */
  cpuPerOperationMs: number;
  selfCpuPerOperationMs: number;
  sshCpuPerOperationMs: number;
  /** Median extra RSS (this process + ssh processes) over idle while all `inFlight` calls were in flight. */
  extraRssMiB: number;
  extraRssPerInFlightMiB: number;
  peakExtraRssMiB: number;
  extraHeapMiB: number;
}

interface TransportFootprint {
  transport: Transport;
  idle: { selfRssMiB: number; sshRssMiB: number; sshProcesses: number };
  levels: ConcurrencyFootprint[];
}

export interface ResourcesResult {
  hosts: number;
  transports: TransportFootprint[];
}

const MiB = 1024 * 1024;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const cpuTotal = (f: ControllerFootprint) => f.selfCpuMs + f.reapedChildCpuMs + f.liveOthersCpuMs;
const rssTotal = (f: ControllerFootprint) => f.selfRssBytes + f.othersRssBytes;

/** One concurrency level: CPU over an unsampled batch, then memory over the same batch sampled every 25 ms. */
async function footprintAt(scratch: string, inFlight: number, batch: (inFlight: number, operations: number) => Promise<void>, inFlightNow: () => number): Promise<ConcurrencyFootprint> {
  const operations = Math.max(16, inFlight * 2);
  // CPU: no sampling during the batch, so the sampler's own reads of /proc are not counted.
  const before = controllerFootprint(scratch);
  const t0 = performance.now();
  await batch(inFlight, operations);
  const wallMs = performance.now() - t0;
  await new Promise((resolve) => setTimeout(resolve, 100)); // let the last ssh clients be reaped
  const after = controllerFootprint(scratch);
  const self = after.selfCpuMs - before.selfCpuMs;
  const total = cpuTotal(after) - cpuTotal(before);
  // Memory: the batch again, sampled every 25 ms with the number of calls in flight at that moment.
  const base = controllerFootprint(scratch);
  const rss: number[] = [];
  const full: number[] = [];
  const perCall: number[] = [];
  const heap: number[] = [];
  const timer = setInterval(() => {
    const now = controllerFootprint(scratch);
    const extraBytes = rssTotal(now) - rssTotal(base);
    rss.push(extraBytes);
    heap.push(now.heapUsedBytes - base.heapUsedBytes);
    if (inFlightNow() === inFlight) full.push(extraBytes);
    if (inFlightNow() > 0) perCall.push(extraBytes / inFlightNow());
  }, 25);
  await batch(inFlight, operations);
  clearInterval(timer);
  const extra = (full.length ? median(full) : median(rss)) / MiB;
  return {
    inFlight,
    operations,
    wallMs: Math.round(wallMs),
    cpuPerOperationMs: round(total / operations),
    selfCpuPerOperationMs: round(self / operations),
    sshCpuPerOperationMs: round((total - self) / operations),
    extraRssMiB: round(extra),
    extraRssPerInFlightMiB: round(full.length ? extra / inFlight : median(perCall) / MiB, 2),
    peakExtraRssMiB: round(Math.max(...rss) / MiB),
    extraHeapMiB: round(median(heap) / MiB),
  };
}

export async function measureResources(ctx: BenchContext, hosts: readonly BenchHost[]): Promise<ResourcesResult> {
  const namespaces = fleetNamespaces(hosts);
  const bindings = fleetBindings(hosts);
  const levels = [1, 8, hosts.length * 4];
  const results: TransportFootprint[] = [];
  for (const transport of TRANSPORTS) {
    progress(`resources: ${transport}, ${levels.join('/')} in flight`);
    const observed = new ObservedDriver(configurationFor(namespaces, { transport, knownHostsFile: mergedKnownHosts(hosts, join(ctx.scratch, 'fleet_known_hosts')) }));
    const { driver } = observed;
    // The fleet run left revision numbers behind; verify-revision only needs the Agent's port.
    const revisions = bindings.map((binding) => revisionFor(binding, 1, ctx.plan.readyAfterMs));
    let active = 0;
    const batch = async (inFlight: number, operations: number) => {
      let next = 0;
      const worker = async () => {
        while (next < operations) {
          const index = next % revisions.length;
          next += 1;
          active += 1;
          try {
            await driver.gatewayAddress(revisions[index]!);
          } finally {
            active -= 1;
          }
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
    };
    const levelResults: ConcurrencyFootprint[] = [];
    let idle: ControllerFootprint | undefined;
    try {
      for (const binding of bindings) driver.bindAgent(binding);
      await batch(hosts.length, hosts.length * 2); // warm-up: connections opened, code paths compiled
      await new Promise((resolve) => setTimeout(resolve, 300));
      idle = controllerFootprint(ctx.scratch);
      for (const inFlight of levels) levelResults.push(await footprintAt(ctx.scratch, inFlight, batch, () => active));
    } finally {
      await observed.close();
    }
    results.push({
      transport,
      idle: idle ? { selfRssMiB: round(idle.selfRssBytes / MiB), sshRssMiB: round(idle.othersRssBytes / MiB), sshProcesses: idle.othersCount } : { selfRssMiB: 0, sshRssMiB: 0, sshProcesses: 0 },
      levels: levelResults,
    });
  }
  return { hosts: hosts.length, transports: results };
}
