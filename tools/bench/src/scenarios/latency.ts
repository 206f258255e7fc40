// Per-operation latency through the driver against a bare `ssh … node -e 0`,
// over a new connection (system-ssh) and over a reused one (openssh-mux, ssh2 against a
// ControlMaster baseline). Operations and baselines alternate, so both see the same load.
import { join } from 'node:path';
import type { AgentRevision } from '@occ-ssh/controller';
import { progress, type BenchContext } from '../hosts/context.js';
import { bindingFor, configurationFor, ObservedDriver, revisionFor, timed, type BenchHost, type Transport } from '../hosts/installation.js';
import { bareNodeArgv, ControlMaster, runSsh } from '../hosts/ssh.js';
import { summarize, type Summary } from '../report/stats.js';

const LATENCY_OPERATIONS = ['probe', 'verify-revision', 'prepare-revision'] as const;
type LatencyOperation = (typeof LATENCY_OPERATIONS)[number];

interface OperationLatency {
  /** Wall time of the driver call. */
  ms: Summary;
  /** The helper's own `timings.totalMs` (from its start to its result line). */
  helperTotalMs: Summary;
  /** Driver call minus the helper's own time: transport, node start-up and helper loading. */
  outsideHelperMs: Summary;
}

interface TransportLatency {
  transport: Transport;
  baseline: 'new-connection' | 'reused-connection';
  baselineMs: Summary;
  /** The very first call of a fresh driver (probe), which opens the connection a pooled transport reuses. */
  firstCallMs: number;
  operations: Record<LatencyOperation, OperationLatency>;
}

export interface LatencyResult {
  rounds: number;
  transports: TransportLatency[];
}

const NAMESPACE = 'bench';

async function runOperation(observed: ObservedDriver, operation: LatencyOperation, revision: AgentRevision): Promise<void> {
  const { driver } = observed;
  if (operation === 'probe') await driver.preflight();
  else if (operation === 'verify-revision') await driver.gatewayAddress(revision);
  else await driver.prepareRevision(revision);
}

/** Deploys the Agent whose served revision the latency figures and the start-up breakdown look at. */
export async function deployLatencyAgent(ctx: BenchContext, host: BenchHost): Promise<void> {
  const binding = bindingFor(NAMESPACE, 'latency');
  const revision = revisionFor(binding, 1, ctx.plan.readyAfterMs);
  const setup = new ObservedDriver(configurationFor({ [NAMESPACE]: host }, { transport: 'system-ssh' }));
  try {
    const ready = await setup.driver.ensureNamespace(binding.namespace);
    if (!ready.namespaceReady) throw new Error(`ensureNamespace failed: ${ready.failure ?? ''}`);
    setup.driver.bindAgent(binding);
    await setup.driver.prepareRevision(revision);
    await setup.driver.activateRevision(revision);
  } finally {
    await setup.close();
  }
}

export async function measureLatency(ctx: BenchContext, host: BenchHost): Promise<LatencyResult> {
  const binding = bindingFor(NAMESPACE, 'latency');
  const revision = revisionFor(binding, 1, ctx.plan.readyAfterMs);
  const hosts = { [NAMESPACE]: host };
  await deployLatencyAgent(ctx, host);

  const master = await ControlMaster.start(host, join(ctx.scratch, 'baseline-master'));
  const results: TransportLatency[] = [];
  try {
    for (const transport of ['system-ssh', 'openssh-mux', 'ssh2'] as const) {
      progress(`latency: ${transport}, ${ctx.plan.latencyRounds} rounds`);
      const reused = transport !== 'system-ssh';
      const baselineArgv = reused ? master.argv(`${host.nodePath} -e 0`) : bareNodeArgv(host);
      const observed = new ObservedDriver(configurationFor(hosts, { transport }));
      try {
        observed.driver.bindAgent(binding);
        const first = await timed(() => observed.driver.preflight());
        const baseline: number[] = [];
        const samples = Object.fromEntries(LATENCY_OPERATIONS.map((op) => [op, { ms: [] as number[], helper: [] as number[], outside: [] as number[] }]));
        for (let round = 0; round < ctx.plan.warmupRounds + ctx.plan.latencyRounds; round += 1) {
          const keep = round >= ctx.plan.warmupRounds;
          for (const operation of LATENCY_OPERATIONS) {
            const { ms } = await timed(() => runOperation(observed, operation, revision));
            const event = observed.last(operation);
            const bare = await runSsh(baselineArgv);
            if (bare.code !== 0) throw new Error(`baseline ssh exited ${String(bare.code)}: ${bare.stderr.trim()}`);
            if (!keep) continue;
            const sample = samples[operation]!;
            sample.ms.push(ms);
            sample.helper.push(event.timings?.totalMs ?? Number.NaN);
            sample.outside.push(ms - (event.timings?.totalMs ?? Number.NaN));
            baseline.push(bare.ms);
          }
        }
        const operations = Object.fromEntries(
          LATENCY_OPERATIONS.map((op) => {
            const s = samples[op]!;
            return [op, { ms: summarize(s.ms), helperTotalMs: summarize(s.helper), outsideHelperMs: summarize(s.outside) }];
          }),
        ) as Record<LatencyOperation, OperationLatency>;
        results.push({
          transport,
          baseline: reused ? 'reused-connection' : 'new-connection',
          baselineMs: summarize(baseline),
          firstCallMs: Math.round(first.ms),
          operations,
        });
      } finally {
        await observed.close();
      }
    }
  } finally {
    master.stop();
  }
  return { rounds: ctx.plan.latencyRounds, transports: results };
}
