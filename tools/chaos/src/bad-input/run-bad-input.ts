// The bad-input section: malformed input. Installation documents (pure), revisions and hook placeholders
// through a real SshComputeDriver pointed at the host, and corrupted base64 arguments sent raw to
// the helper. Each must be refused with a permanent, classified error and leave the host exactly
// as it was (tree and passwd hashes compared before and after each batch of cases).
import { ComputeError, loadInstallationConfiguration, type ComputeAgentBinding, type AgentRevision, type LifecycleDriver, type SshComputeDriver } from '@occ-ssh/controller';
import { occRevision } from '@occ-ssh/occ-fixtures';
import { argumentCases } from './argument-cases.js';
import { fixedConfigCases, randomConfigCases } from './bad-configs.js';
import { driverCases, NAMESPACE, type DriverEnv } from './driver-cases.js';
import { helperOf, runSteps, shOf, TREE_HASH, treeHash } from '../host/collector.js';
import { controller } from '../host/controllers.js';
import type { Rng } from '../campaign/rng.js';
import type { HostLink } from '../host/ssh.js';

type BadGroup = 'installation' | 'driver' | 'helper-argument';

export interface BadCaseResult {
  group: BadGroup;
  name: string;
  /** An error came back (nothing was accepted). */
  refused: boolean;
  /** It was a ComputeError with failure `permanent` (and, for documents, it named the key path). */
  classified: boolean;
  unchanged: boolean;
  batch: number;
  code?: string;
  message?: string;
}

export interface BadInputPlan {
  randomConfigs: number;
  randomArguments: number;
  /** Cases per tree comparison on the host (1 = every case compared on its own). */
  batchSize: number;
}

function first(message: string): string {
  return message.split('\n')[0]!.slice(0, 240);
}

/** Runs `attempt`, which must throw (or report) a permanent ComputeError. */
async function refusal(attempt: () => Promise<unknown>): Promise<Pick<BadCaseResult, 'refused' | 'classified' | 'code' | 'message'>> {
  try {
    const value = await attempt();
    const failure = (value as { failure?: string } | undefined)?.failure;
    if (failure) return { refused: true, classified: failure === 'permanent', code: `result failure ${failure}` };
    return { refused: false, classified: false, message: 'accepted' };
  } catch (error) {
    if (!(error instanceof ComputeError)) return { refused: true, classified: false, message: `not a ComputeError: ${String(error).slice(0, 200)}` };
    return { refused: true, classified: error.failure === 'permanent', code: error.code, message: first(error.message) };
  }
}

export async function runBadInput(link: HostLink, rng: Rng, plan: BadInputPlan, progress: (line: string) => void): Promise<BadCaseResult[]> {
  const results: BadCaseResult[] = [];
  let batch = 0;

  // 1. Installation documents: pure, so the host cannot change; one comparison brackets them all.
  const hostBefore = await treeHash(link);
  for (const item of [...fixedConfigCases(), ...randomConfigCases(rng.fork('configs'), plan.randomConfigs)]) {
    const outcome = await refusal(async () => loadInstallationConfiguration({ text: item.text }));
    const named = outcome.message?.startsWith(item.key) === true;
    results.push({ group: 'installation', name: item.name, ...outcome, classified: outcome.classified && outcome.code === 'configuration' && named, unchanged: true, batch });
  }
  const configsUnchanged = (await treeHash(link)) === hostBefore;
  for (const result of results) result.unchanged = configsUnchanged;
  progress(`bad input: ${results.length} Installation documents`);

  // 2. Revisions and placeholders through a real driver, with the Agent's revision staged on the host.
  const binding: ComputeAgentBinding = { namespace: { id: 'ns-badin', name: NAMESPACE }, agent: { id: 'agent-badin', namespaceId: 'ns-badin', servicePrincipalId: 'sp-badin' } };
  const good: AgentRevision = { ...occRevision(binding, 1, { gateway: { mode: 'local', bind: 'loopback' } }), id: 'rev-badin-1' };

  const drivers: SshComputeDriver[] = [];
  const make = (hooks: LifecycleDriver[]) => {
    const driver = controller(link.host, [NAMESPACE], { hooks, readinessTimeoutMs: 20_000 });
    drivers.push(driver);
    return driver;
  };
  const driver = make([]);
  try {
    if (!(await driver.ensureNamespace(binding.namespace)).namespaceReady) throw new Error('bad input: setup ensureNamespace failed');
    driver.bindAgent(binding);
    await driver.prepareRevision(good);
    const env: DriverEnv = { driver, binding, good, withHooks: make };
    await inBatches(
      link,
      plan.batchSize,
      driverCases(),
      async (item) => ({ group: 'driver', name: item.name, ...(await refusal(() => item.run(env))) }),
      results,
      () => (batch += 1),
    );
    progress(`bad input: ${results.filter((r) => r.group === 'driver').length} driver cases`);

    // 3. Corrupted arguments straight to the helper, one batch per round trip.
    const argumentList = argumentCases(link, rng.fork('arguments'), plan.randomArguments);
    const batchSize = Math.max(plan.batchSize, 1);
    for (let start = 0; start < argumentList.length; start += batchSize) {
      const items = argumentList.slice(start, start + batchSize);
      batch += 1;
      // One round trip: tree hash, every helper of the batch, tree hash.
      const steps = await runSteps(link, [{ sh: TREE_HASH }, ...items.map((item) => ({ helper: item.argument })), { sh: TREE_HASH }]);
      const unchanged = shOf(steps[0]) === shOf(steps[steps.length - 1]);
      for (const [index, item] of items.entries()) {
        const outcome = helperOf(steps[index + 1]);
        const line = outcome.line;
        const base = { group: 'helper-argument' as const, name: item.name, unchanged, batch };
        if (!line) results.push({ ...base, refused: false, classified: false, message: `no result line (exit ${String(outcome.code)})` });
        else if (line.ok) results.push({ ...base, refused: false, classified: false, message: 'accepted' });
        else results.push({ ...base, refused: true, classified: line.error.code === 'configuration', code: line.error.code, message: first(line.error.message) });
      }
    }
    progress(`bad input: ${results.filter((r) => r.group === 'helper-argument').length} helper arguments`);
    await driver.deleteNamespace(binding.namespace);
  } finally {
    await Promise.all(drivers.map((d) => d.close()));
  }
  return results;
}

/** Runs cases in batches of `size`, comparing the host tree hash before and after each batch. */
async function inBatches<T>(
  link: HostLink,
  size: number,
  items: readonly T[],
  run: (item: T) => Promise<Omit<BadCaseResult, 'unchanged' | 'batch'>>,
  results: BadCaseResult[],
  nextBatch: () => number,
): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    const batch = nextBatch();
    const before = await treeHash(link);
    const done: Omit<BadCaseResult, 'unchanged' | 'batch'>[] = [];
    for (const item of items.slice(start, start + size)) done.push(await run(item));
    const unchanged = (await treeHash(link)) === before;
    for (const result of done) results.push({ ...result, unchanged, batch });
  }
}
