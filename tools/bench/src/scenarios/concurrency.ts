// Concurrency: 8 Agents activated at once on one host against one activation alone, through the
// driver, with the fixture gateway's fixed start delay, so the lock and not the CPU is measured.
// Before activation waited for readiness without the host lock, the eighth finished after eight
// gateway starts (or failed with lock-timeout at 30 s).
import type { TestHost } from '@occ-ssh/testhost';
import { progress, type BenchContext } from '../hosts/context.js';
import { bindingFor, configurationFor, ObservedDriver, revisionFor, timed } from '../hosts/installation.js';

/** Agents activated at once, and the fixture gateway's start-to-ready: a stand-in for the real gateway's 8 to 11 s. */
const PLAN = { agents: 8, readyAfterMs: 6000 } as const;

export interface ConcurrencyResult {
  agents: number;
  readyAfterMs: number;
  /** One activation alone, just before the concurrent ones (the baseline). */
  singleMs: number;
  /** Each of the concurrent activations, call to return. */
  concurrentMs: number[];
  lockWaitMs: number[];
  lockHoldMs: number[];
  failures: string[];
}

export async function measureConcurrency(_ctx: BenchContext, host: TestHost): Promise<ConcurrencyResult> {
  // The driver's own per-host bound (default 4) would queue them before the host does.
  const observed = new ObservedDriver(configurationFor({ conc: host }, { maxConcurrentOperationsPerHost: PLAN.agents }), { readinessTimeoutMs: 60_000 });
  const { driver } = observed;
  try {
    const bindings = Array.from({ length: PLAN.agents + 1 }, (_, i) => bindingFor('conc', `conc${i}`));
    const revision = (i: number) => revisionFor(bindings[i]!, 1, PLAN.readyAfterMs);
    await driver.ensureNamespace(bindings[0]!.namespace);
    for (const [i, binding] of bindings.entries()) {
      driver.bindAgent(binding);
      await driver.prepareRevision(revision(i));
    }
    progress(`concurrency: one activation, then ${PLAN.agents} at once (gateways ready ${PLAN.readyAfterMs} ms after start)`);
    const single = await timed(() => driver.activateRevision(revision(0)));
    const failures: string[] = [];
    const concurrent = await Promise.all(
      bindings
        .slice(1)
        .map((_, k) =>
          timed(() => driver.activateRevision(revision(k + 1)).catch((error: unknown) => void failures.push(`${bindings[k + 1]!.agent.id}: ${(error as { code?: string }).code ?? String(error)}`))),
        ),
    );
    const events = bindings.slice(1).map((binding) => observed.events.filter((event) => event.operation === 'activate-revision' && event.agent === binding.agent.id).at(-1));
    return {
      ...PLAN,
      singleMs: Math.round(single.ms),
      concurrentMs: concurrent.map((entry) => Math.round(entry.ms)),
      lockWaitMs: events.map((event) => event?.timings?.lockWaitMs ?? -1),
      lockHoldMs: events.map((event) => event?.timings?.lockHoldMs ?? -1),
      failures,
    };
  } finally {
    await driver.deleteNamespace(bindingFor('conc', 'conc0').namespace).catch(() => undefined);
    await observed.close();
  }
}
