// The races section: concurrent controllers on one host. (1) Several controllers prepare different Agents
// at once: no port is handed out twice and every account is distinct. (2) A prepare races the
// deletion of its own Namespace: the end is either a fully deleted Namespace or a complete Agent.
import { accountName, agentHash, nsHash, revHash } from '@occ-ssh/markers';
import type { AgentRevision, ComputeAgentBinding as AgentBinding, SshComputeDriver } from '@occ-ssh/controller';
import { occRevision } from '@occ-ssh/occ-fixtures';
import { collect } from '../host/collector.js';
import { checkInvariants, type Violation } from '../host-state/invariants.js';
import { buildModel, allAgents } from '../host-state/model.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { RUNTIME_USER } from '../host/fixture-args.js';
import type { Rng } from '../campaign/rng.js';
import type { HostLink } from '../host/ssh.js';
import { SETTINGS } from '../trials/trial.js';
import { controller } from '../host/controllers.js';

export interface RacePlan {
  allocations: number;
  controllers: number;
  /** Prepares per controller before the batch's Namespaces are deleted (ports run out at 100). */
  roundsPerBatch: number;
  prepareDeleteRounds: number;
}

export interface RaceResult {
  allocations: number;
  failedPrepares: string[];
  duplicatePorts: number;
  duplicateAccounts: number;
  missingAgents: number;
  batches: { agents: number; ports: number; violations: number; deletedClean: boolean }[];
  prepareVsDelete: { rounds: number; deleted: number; prepared: number; inconsistent: number; outcomes: Record<string, number> };
  /** Retryable failures (a lock wait beyond 30 s under load) that a retry then completed, by code. */
  retried: Record<string, number>;
  violations: Violation[];
  failures: string[];
}

function binding(namespaceId: string, namespaceName: string, agentTag: string): AgentBinding {
  return {
    namespace: { id: namespaceId, name: namespaceName },
    agent: { id: `agent-${agentTag}`, namespaceId, servicePrincipalId: `sp-${agentTag}` },
  };
}

function revision(bound: AgentBinding, number = 1): AgentRevision {
  return occRevision(bound, number, { gateway: { mode: 'local', bind: 'loopback' } });
}

const RETRIES = 10;

/**
 * Every call has returned when the races list the host, so only helpers are waited for: the
 * controllers' pooled connections (openssh-mux masters, ssh2) stay open by design and would hold a
 * wait for idle sessions until they time out.
 */
const SETTLED = { waitSessions: false } as const;

/** OCC retries retryable failures; so do the racing controllers (counting each retry by its code). */
async function retrying<T>(result: RaceResult, attempt: () => Promise<T>, failed: (value: T) => string | undefined = () => undefined): Promise<T> {
  for (let round = 1; ; round += 1) {
    let code: string | undefined;
    try {
      const value = await attempt();
      const failure = failed(value);
      if (failure === undefined || round >= RETRIES) return value;
      code = failure;
    } catch (error) {
      const retryable = (error as { failure?: string }).failure === 'retryable';
      if (!retryable || round >= RETRIES) throw error;
      code = (error as { code?: string }).code ?? 'retryable';
    }
    result.retried[code] = (result.retried[code] ?? 0) + 1;
    await sleep(Math.min(1000 * round, 5000));
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);

export function newRaceResult(): RaceResult {
  return {
    allocations: 0,
    failedPrepares: [],
    duplicatePorts: 0,
    duplicateAccounts: 0,
    missingAgents: 0,
    batches: [],
    prepareVsDelete: { rounds: 0, deleted: 0, prepared: 0, inconsistent: 0, outcomes: {} },
    violations: [],
    failures: [],
    retried: {},
  };
}

function controllersFor(link: HostLink, count: number) {
  const names = Array.from({ length: count }, (_, i) => `race${i}`);
  return { names, drivers: names.map(() => controller(link.host, names)) };
}

function deleter(result: RaceResult) {
  return (driver: SshComputeDriver, namespace: { id: string; name: string }) =>
    retrying(
      result,
      () => driver.deleteNamespace(namespace),
      (value) => (value.namespaceDeleted || value.failure === 'permanent' ? undefined : `delete ${value.failure ?? '?'}`),
    );
}

/** Part 1: concurrent controllers prepare different Agents; ports and accounts must all differ. */
export async function runAllocations(link: HostLink, rng: Rng, plan: RacePlan, result: RaceResult, progress: (line: string) => void): Promise<void> {
  const { names, drivers } = controllersFor(link, plan.controllers);
  const deleting = deleter(result);
  try {
    for (let batch = 0; result.allocations < plan.allocations; batch += 1) {
      const rounds = Math.min(plan.roundsPerBatch, Math.ceil((plan.allocations - result.allocations) / plan.controllers));
      const expected: { namespaceId: string; agentId: string }[] = [];
      await Promise.all(
        drivers.map(async (driver, c) => {
          const namespace = { id: `ns-race-b${batch}-c${c}`, name: names[c]! };
          const ready = await retrying(
            result,
            () => driver.ensureNamespace(namespace),
            (value) => (value.namespaceReady || value.failure === 'permanent' ? undefined : 'ensure retryable'),
          );
          if (!ready.namespaceReady) throw new Error(`ensureNamespace ${namespace.id} failed`);
          for (let round = 0; round < rounds; round += 1) {
            const bound = binding(namespace.id, namespace.name, `race-b${batch}-c${c}-r${round}`);
            driver.bindAgent(bound);
            await sleep(rng.int(0, 150));
            try {
              const prepared = await retrying(result, () => driver.prepareRevision(revision(bound)));
              if (!prepared.ready) throw new Error('not ready');
              result.allocations += 1;
              expected.push({ namespaceId: namespace.id, agentId: bound.agent.id });
            } catch (error) {
              result.failedPrepares.push(`${bound.agent.id}: ${message(error)}`);
            }
          }
        }),
      );
      const listing = await collect(link, SETTLED);
      const verdict = checkInvariants(listing, SETTINGS);
      const model = buildModel(listing);
      const agents = allAgents(model)
        .map((agent) => agent.marker?.marker)
        .filter((marker) => marker !== null && marker !== undefined);
      const ports = agents.map((marker) => marker.port);
      const accounts = agents.map((marker) => marker.account);
      result.duplicatePorts += ports.length - new Set(ports).size;
      result.duplicateAccounts += accounts.length - new Set(accounts).size + (agents.length - new Set(agents.map((marker) => marker.uid)).size);
      for (const want of expected) {
        const agent = model.namespaces.get(nsHash(want.namespaceId))?.agents.get(agentHash(want.agentId));
        if (!agent?.marker?.marker || !agent.revisions.get(revHash(`rev-${want.agentId}-1`))?.marker?.marker) result.missingAgents += 1;
      }
      result.violations.push(...verdict.violations);
      // Every controller deletes its own Namespace at the same moment: deletions race each other too.
      const deleted = await Promise.all(drivers.map((driver, c) => deleting(driver, { id: `ns-race-b${batch}-c${c}`, name: names[c]! })));
      const afterDelete = await collect(link, SETTLED);
      const cleanVerdict = checkInvariants(afterDelete, SETTINGS);
      result.violations.push(...cleanVerdict.violations);
      const leftover = buildModel(afterDelete);
      const deletedClean =
        deleted.every((entry) => entry.namespaceDeleted) && leftover.namespaces.size === 0 && leftover.accounts.size === 0 && afterDelete.users.length === 0 && cleanVerdict.pending.length === 0;
      if (!deletedClean) result.failures.push(`batch ${batch}: deletion left ${leftover.namespaces.size} Namespaces, ${leftover.accounts.size} account markers, ${afterDelete.users.length} users`);
      result.batches.push({ agents: agents.length, ports: new Set(ports).size, violations: verdict.violations.length + cleanVerdict.violations.length, deletedClean });
      progress(`races: batch ${batch}: ${agents.length} Agents, ${new Set(ports).size} distinct ports, ${result.allocations}/${plan.allocations} allocations`);
    }
  } finally {
    await Promise.all(drivers.map((driver) => driver.close()));
  }
}

/** Part 2: a prepare races the deletion of its own Namespace; the end is consistent either way. */
export async function runPrepareVsDelete(link: HostLink, rng: Rng, plan: RacePlan, result: RaceResult, progress: (line: string) => void): Promise<void> {
  const { names, drivers } = controllersFor(link, 2);
  const deleting = deleter(result);
  const [preparer, remover] = [drivers[0]!, drivers[1]!];
  try {
    for (let round = 0; round < plan.prepareDeleteRounds; round += 1) {
      const namespace = { id: `ns-pvd-${round}`, name: names[0]! };
      await retrying(
        result,
        () => preparer.ensureNamespace(namespace),
        (value) => (value.namespaceReady ? undefined : 'ensure retryable'),
      );
      // Sometimes the Namespace already holds another Agent, so deletion has real work to race with.
      if (rng.chance(0.5)) {
        const other = binding(namespace.id, namespace.name, `pvd-${round}-other`);
        preparer.bindAgent(other);
        await retrying(result, () => preparer.prepareRevision(revision(other)));
      }
      const bound = binding(namespace.id, namespace.name, `pvd-${round}`);
      preparer.bindAgent(bound);
      const [prepareDelay, deleteDelay] = [rng.int(0, 1500), rng.int(0, 1500)];
      const [prepared, deleted] = await Promise.all([
        sleep(prepareDelay).then(() =>
          preparer.prepareRevision(revision(bound)).then(
            () => 'ok',
            (error: unknown) => `failed (${(error as { code?: string }).code ?? 'error'})`,
          ),
        ),
        sleep(deleteDelay).then(() => remover.deleteNamespace(namespace)),
      ]);
      const listing = await collect(link, SETTLED);
      const verdict = checkInvariants(listing, SETTINGS);
      result.violations.push(...verdict.violations);
      const model = buildModel(listing);
      const ns = model.namespaces.get(nsHash(namespace.id));
      const ownedAccounts = [...model.accounts.values()].filter((parsed) => parsed.marker?.namespaceId === namespace.id);
      const accountNames = [bound.agent.id, `agent-pvd-${round}-other`].map((agentId) => accountName(RUNTIME_USER, namespace.id, agentId));
      const liveAccounts = listing.users.filter((user) => accountNames.includes(user.name)).length + listing.groups.filter((group) => accountNames.includes(group.name)).length;
      let outcome: 'deleted' | 'prepared' | 'inconsistent';
      if (!ns && ownedAccounts.length === 0 && liveAccounts === 0 && verdict.pending.length === 0) outcome = 'deleted';
      else {
        const agent = ns?.agents.get(agentHash(bound.agent.id));
        const complete = ns?.marker?.marker && agent?.marker?.marker && agent.revisions.get(revHash(revision(bound).id))?.marker?.marker && prepared === 'ok' && verdict.pending.length === 0;
        outcome = complete ? 'prepared' : 'inconsistent';
      }
      result.prepareVsDelete.rounds += 1;
      result.prepareVsDelete[outcome] += 1;
      const key = `prepare ${prepared}, delete ${deleted.namespaceDeleted ? 'ok' : `failed (${deleted.failure ?? '?'})`} -> ${outcome}`;
      result.prepareVsDelete.outcomes[key] = (result.prepareVsDelete.outcomes[key] ?? 0) + 1;
      if (outcome === 'inconsistent')
        result.failures.push(`prepare vs delete round ${round} (prepare at +${prepareDelay} ms, delete at +${deleteDelay} ms): ${key}; pending ${verdict.pending.join('; ')}`);
      // Leave the host clean for the next round.
      await deleting(remover, namespace);
    }
    progress(`races: prepare vs delete: ${JSON.stringify(result.prepareVsDelete.outcomes)}`);
  } finally {
    await Promise.all(drivers.map((driver) => driver.close()));
  }
}
