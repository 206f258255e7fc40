// A fleet. Every host runs one Agent; a deploy (prepare + activate of a new revision) on
// all hosts in parallel, against the same deploy on one host alone, alternating within each rep.
import { join } from 'node:path';
import type { ComputeAgentBinding as AgentBinding } from '@occ-ssh/controller';
import { progress, type BenchContext } from '../hosts/context.js';
import { cpus } from 'node:os';
import { bindingFor, configurationFor, mergedKnownHosts, ObservedDriver, revisionFor, TRANSPORTS, type BenchHost, type Transport } from '../hosts/installation.js';
import { hostCpuMs } from '../hosts/machine.js';
import { median, ratio, summarize, type Summary } from '../report/stats.js';

interface FleetTransport {
  transport: Transport;
  oneHostMs: Summary;
  allHostsMs: Summary;
  /** Median deploy time of a single host inside the parallel run. */
  perHostInFleetMs: Summary;
  /** allHosts / oneHost medians; the fleet target is ≤ 1.5. */
  ratio: number;
  /** CPU time the deploy cost: every process of the host(s) plus the controller process. */
  oneHostCpuMs: Summary;
  allHostsCpuMs: Summary;
  /**
   * The least wall time the parallel deploy can take on this machine, where all test hosts share
   * its cores: all hosts' CPU time over the core count (or one host alone, if longer).
   */
  cpuFloorMs: number;
  /** allHosts median over the CPU floor: how close the parallel deploy comes to the machine's limit. */
  overFloor: number;
}

export interface FleetResult {
  hosts: number;
  reps: number;
  readyAfterMs: number;
  transports: FleetTransport[];
}

export function fleetNamespaces(hosts: readonly BenchHost[]): Record<string, BenchHost> {
  return Object.fromEntries(hosts.map((host, index) => [`fleet${index + 1}`, host]));
}

export function fleetBindings(hosts: readonly BenchHost[]): AgentBinding[] {
  return hosts.map((_, index) => bindingFor(`fleet${index + 1}`, `fleet-${index + 1}`));
}

export async function measureFleet(ctx: BenchContext, hosts: readonly BenchHost[]): Promise<FleetResult> {
  const namespaces = fleetNamespaces(hosts);
  const bindings = fleetBindings(hosts);
  const numbers = bindings.map(() => 0);
  const results: FleetTransport[] = [];
  for (const transport of TRANSPORTS) {
    progress(`fleet: ${hosts.length} hosts over ${transport}, ${ctx.plan.fleetReps} reps`);
    const observed = new ObservedDriver(configurationFor(namespaces, { transport, knownHostsFile: mergedKnownHosts(hosts, join(ctx.scratch, 'fleet_known_hosts')) }));
    const { driver } = observed;
    // CPU used by all test hosts and by this process, in ms.
    const cpuNow = () => hosts.reduce((sum, host) => sum + hostCpuMs(host.name), 0) + (process.cpuUsage().user + process.cpuUsage().system) / 1000;
    const deploy = async (index: number): Promise<number> => {
      const binding = bindings[index]!;
      numbers[index]! += 1;
      const revision = revisionFor(binding, numbers[index]!, ctx.plan.readyAfterMs);
      const started = performance.now();
      await driver.prepareRevision(revision);
      await driver.activateRevision(revision);
      return performance.now() - started;
    };
    const all = async () => {
      const started = performance.now();
      const each = await Promise.all(bindings.map((_, index) => deploy(index)));
      return { wall: performance.now() - started, each };
    };
    const one: number[] = [];
    const fleet: number[] = [];
    const perHost: number[] = [];
    const oneCpu: number[] = [];
    const fleetCpu: number[] = [];
    try {
      for (const binding of bindings) {
        const ready = await driver.ensureNamespace(binding.namespace);
        if (!ready.namespaceReady) throw new Error(`ensureNamespace ${binding.namespace.name} failed (${ready.failure ?? ''}): ${observed.events.at(-1)?.reason ?? ''}`);
        driver.bindAgent(binding);
      }
      await all(); // warm-up: first deploys create accounts; pooled transports open their connections
      for (let rep = 0; rep < ctx.plan.fleetReps; rep += 1) {
        let cpu = cpuNow();
        one.push(await deploy(rep % bindings.length));
        oneCpu.push(cpuNow() - cpu);
        cpu = cpuNow();
        const run = await all();
        fleetCpu.push(cpuNow() - cpu);
        fleet.push(run.wall);
        perHost.push(median(run.each));
      }
    } finally {
      await observed.close();
    }
    const cpuFloorMs = Math.round(Math.max(median(fleetCpu) / cpus().length, median(one)));
    results.push({
      transport,
      oneHostMs: summarize(one),
      allHostsMs: summarize(fleet),
      perHostInFleetMs: summarize(perHost),
      ratio: ratio(median(fleet), median(one)),
      oneHostCpuMs: summarize(oneCpu),
      allHostsCpuMs: summarize(fleetCpu),
      cpuFloorMs,
      overFloor: ratio(median(fleet), cpuFloorMs),
    });
  }
  return { hosts: hosts.length, reps: ctx.plan.fleetReps, readyAfterMs: ctx.plan.readyAfterMs, transports: results };
}
