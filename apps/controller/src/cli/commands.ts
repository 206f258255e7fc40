// The occ-ssh commands, each the OCC worker's sequence of driver calls for one operator intent.
import { ComputeError, toComputeError, type InventoryResult } from '@occ-ssh/protocol';
import { HostFailures } from '../host-failures.js';
import { hostFor, type SshComputeConfiguration } from '../config/index.js';
import type { SshComputeDriver } from '../driver.js';
import type { AgentRevision, ComputePreflightWarning } from '../types.js';
import type { CliOptions } from './args.js';
import { Ledger, defaultLedgerPath } from './ledger.js';
import type { Reporter } from './report.js';
import { bindingFrom, namespaceFrom, resourcesFrom } from './resources.js';
import { describeRuntime, runtimeBinding } from './runtime.js';
import type { AgentRuntimeDescription } from '../runtime-types.js';
import { workspaceContext, workspaceFilesFrom } from './workspace-files.js';

export interface CommandContext {
  options: CliOptions;
  config: SshComputeConfiguration;
  driver: SshComputeDriver;
  report: Reporter;
  /** Writes to stdout as is, in --json mode too (log entries). */
  print: (text: string) => void;
  /** The CLI's interrupt: a command that runs until it (logs --follow) ends on it. */
  signal?: AbortSignal;
}

/**
 * Every host is checked; the recap says which are ok, which failed and which could not be reached.
 * Warnings (a host that cannot enforce what its units ask) are printed, and never fail the command.
 */
export async function preflight({ driver, config, report }: CommandContext) {
  const names = Object.keys(config.hosts);
  let warnings: readonly ComputePreflightWarning[];
  try {
    ({ warnings } = await report.step(
      `preflight (${names.length} host(s))`,
      () => driver.preflight(),
      (r) => (r.warnings.length > 0 ? `${r.warnings.length} warning(s)` : undefined),
    ));
  } catch (error) {
    const failures = error instanceof HostFailures ? error.failures : new Map([[toComputeError(error).details.host ?? '', toComputeError(error)]]);
    // A failure that names no host (the local SSH files) concerns every host alike.
    if (failures.has('')) throw error;
    for (const name of names) recapHost(report, name, failures.get(name));
    throw new HostsFailed(failures);
  }
  for (const warning of warnings) report.note(`  warning ${warning.code}: ${warning.message}`);
  for (const name of names) recapHost(report, name, undefined);
  return { hosts: names, warnings };
}

/** The CLI's view of several failed hosts: each is printed, and the exit status is the worst. */
export class HostsFailed extends HostFailures {}

function recapHost(report: Reporter, host: string, failure: ComputeError | undefined): void {
  if (!failure) return report.host(host, 'ok');
  const unreachable = failure.code === 'transport' || failure.code === 'timeout';
  report.host(host, unreachable ? 'unreachable' : 'failed', `${failure.code}${failure.details.transportCause ? ` (${failure.details.transportCause})` : ''}`);
}

/** The OCC worker flow: bind, validate, prepare, commit (compare-and-set), activate, retire the previous revision. */
export async function deploy({ options, driver, report }: CommandContext) {
  const { binding, revision } = resourcesFrom(options);
  const files = workspaceFilesFrom(options);
  const ledger = new Ledger(options.ledger ?? defaultLedgerPath());
  const before = ledger.entry(revision.namespaceId, revision.agentId);
  const context = workspaceContext(revision, files, before?.workspaceSetupId);
  const pendingSetup = context?.workspaceSetup as { id: string; completed: boolean } | undefined;
  report.note(`deploy ${revision.agentId} revision ${revision.revision} (${revision.id}) to Namespace ${binding.namespace.name}`);
  // The throwing form: a failed step shows as failed, with the host's or the transport's own cause.
  await report.step('ensure namespace', () => driver.ensureNamespaceOrThrow(binding.namespace));
  await report.step('bind agent', async () => driver.bindAgent(binding));
  await report.step('validate harness auth', async () => driver.validateHarnessAuth(revision.harness, revision.harnessAuth, revision.configuration, revision.secretBindings));
  const prepared = await report.step(
    files ? `prepare revision and workspace (${Object.keys(files).join(', ')})` : 'prepare revision',
    () => driver.prepareRevision(revision, context),
    (r) => (r.ready ? undefined : 'superseded by a newer revision'),
  );
  if (!prepared.ready) return { revisionId: revision.id, ready: false, active: before?.active.id ?? null };
  const expected = before?.active.id ?? null;
  const committed = await report.step('commit active revision (ledger compare-and-set)', () => ledger.compareAndSet(revision, expected));
  await report.step('activate (unit, current, restart, readiness)', () => driver.activateRevision(revision, context));
  // As OCC does in its activation-completion transaction: from here on the setup is complete.
  if (pendingSetup && !pendingSetup.completed) await ledger.completeWorkspaceSetup(revision.namespaceId, revision.agentId, pendingSetup.id);
  const previous = committed.previous && committed.previous.id !== revision.id ? committed.previous : null;
  if (previous) await report.step(`retire previous revision ${previous.revision}`, () => driver.retireRevision(previous));
  const endpoint = await report.step(
    'gateway address',
    () => driver.gatewayAddress(revision),
    (e) => `${e.host} ${e.url} (host loopback)`,
  );
  return { revisionId: revision.id, ready: true, active: revision.id, retired: previous?.id ?? null, endpoint };
}

function revisionFor(options: CliOptions): { revision: AgentRevision; bindingOnly: ReturnType<typeof resourcesFrom>['binding'] } {
  const { binding, revision } = resourcesFrom(options);
  return { revision, bindingOnly: binding };
}

export async function stop({ options, driver, report }: CommandContext) {
  const { revision, bindingOnly } = revisionFor(options);
  driver.bindAgent(bindingOnly);
  const stopped = await report.step(
    `stop ${revision.agentId} (revision ${revision.revision})`,
    () => driver.stopRevisionReport(revision),
    (r) => (r.currentRemoved ? undefined : 'nothing was running'),
  );
  // The helper stops a gateway only when this revision is current: otherwise nothing changed.
  if (!stopped.currentRemoved) return { stopped: null, nothingDone: `revision ${revision.revision} (${revision.id}) of ${revision.agentId} was not running` };
  return { stopped: revision.id };
}

export async function retire({ options, driver, report }: CommandContext) {
  const { revision, bindingOnly } = revisionFor(options);
  driver.bindAgent(bindingOnly);
  await report.step(`retire revision ${revision.revision} (${revision.id})`, () => driver.retireRevision(revision));
  return { retired: revision.id };
}

/** OCC's Agent deletion: the host verifies, then removes the unit, directory and account; the ledger forgets the Agent. */
export async function deleteAgent({ options, driver, report }: CommandContext) {
  const binding = bindingFrom(options);
  const result = await report.step(`delete agent ${binding.agent.id} from Namespace ${binding.namespace.name}`, () => driver.deleteAgent(binding), describeDeletion);
  await new Ledger(options.ledger ?? defaultLedgerPath()).remove(binding.namespace.id, binding.agent.id);
  return result;
}

function describeDeletion(result: Awaited<ReturnType<SshComputeDriver['deleteAgent']>>): string {
  const removed = [result.unitRemoved ? 'unit' : '', result.agentExisted ? 'directory' : '', result.accountRemoved ? 'account' : ''].filter(Boolean);
  if (removed.length === 0) return 'nothing was left to remove';
  return `removed ${removed.join(', ')}${result.portFreed === null ? '' : `; port ${result.portFreed} is free`}`;
}

export async function deleteNamespace({ options, driver, report }: CommandContext) {
  const namespace = namespaceFrom(options);
  const result = await report.step(`delete namespace ${namespace.name}`, () => driver.deleteNamespaceOrThrow(namespace));
  await new Ledger(options.ledger ?? defaultLedgerPath()).remove(namespace.id);
  return result;
}

/**
 * One inventory per host, all hosts at once: Namespaces mapped to the same address and port share a
 * host, whose inventory already lists every Namespace on it. --json keeps one entry per Namespace name.
 */
export async function status({ options, config, driver, report }: CommandContext) {
  const names = options.namespace ? [options.namespace] : Object.keys(config.hosts);
  const groups = new Map<string, { address: string; namespaces: string[] }>();
  for (const name of names) {
    const host = hostFor(config, name);
    const key = `${host.address}:${host.port}`;
    const group = groups.get(key) ?? { address: host.address, namespaces: [] };
    group.namespaces.push(name);
    groups.set(key, group);
  }
  const probed = await report.step(`inventory of ${groups.size} host(s), in parallel`, () =>
    Promise.all(
      [...groups.values()].map(async (group) => {
        const label = group.namespaces.join(', ');
        try {
          return { group, label, inventory: await driver.inventory(group.namespaces[0]!) };
        } catch (error) {
          return { group, label, failure: toComputeError(error, { host: label }) };
        }
      }),
    ),
  );
  const runtime = await report.step('runtime view of each Agent with a current revision (what OCC shows)', () =>
    runtimeViews(
      driver,
      probed.flatMap((probe) => (probe.inventory ? [probe.inventory] : [])),
    ),
  );
  const hosts: Record<string, InventoryResult> = {};
  const failures = new Map<string, ComputeError>();
  // An unreachable host does not hide the others: each is shown, and the recap lists them all.
  for (const { group, label, inventory, failure } of probed) {
    report.line(`  host ${group.address} (${group.namespaces.length > 1 ? 'Namespaces' : 'Namespace'} ${label}): ${inventory ? 'ok' : `${failure!.failure} ${failure!.code}`}`);
    if (inventory) {
      for (const name of group.namespaces) hosts[name] = inventory;
      for (const line of describeInventory(inventory, runtime)) report.line(line);
    } else {
      failures.set(label, failure!);
    }
    recapHost(report, label, failure);
  }
  if (failures.size > 0) throw new HostsFailed(failures);
  return {
    hosts,
    runtime: Object.fromEntries([...runtime].map(([agentId, view]) => [agentId, view instanceof ComputeError ? { failure: view.failure, code: view.code, message: view.message } : view])),
  };
}

/** describeAgentRuntime for each Agent whose `current` names a revision, all at once (the driver bounds each host's concurrency). */
async function runtimeViews(driver: SshComputeDriver, inventories: readonly InventoryResult[]): Promise<Map<string, AgentRuntimeDescription | ComputeError>> {
  const views = new Map<string, AgentRuntimeDescription | ComputeError>();
  const work = inventories.flatMap((inventory) =>
    inventory.namespaces.flatMap((ns) =>
      ns.agents.flatMap((agent) => {
        const revision = agent.revisions.find((r) => r.revisionId === agent.currentRevisionId);
        if (!revision) return [];
        const binding = { namespace: { id: ns.namespaceId, name: ns.namespaceName }, agent: { id: agent.agentId, namespaceId: ns.namespaceId, servicePrincipalId: agent.servicePrincipalId } };
        const target = runtimeBinding(driver, binding, { id: revision.revisionId, number: revision.number });
        return [
          driver.describeAgentRuntime(target, AbortSignal.timeout(60_000)).then(
            (view) => views.set(agent.agentId, view),
            (error: unknown) => views.set(agent.agentId, toComputeError(error)),
          ),
        ];
      }),
    ),
  );
  await Promise.all(work);
  return views;
}

function describeInventory(result: InventoryResult, runtime: ReadonlyMap<string, AgentRuntimeDescription | ComputeError>): string[] {
  const lines: string[] = [];
  for (const ns of result.namespaces) {
    lines.push(`    Namespace ${ns.namespaceName} (${ns.namespaceId}): ${ns.agents.length} Agent(s)`);
    for (const agent of ns.agents) {
      lines.push(`      Agent ${agent.agentId}  account ${agent.account} (${agent.uid}:${agent.gid})  port ${agent.port}  workspace setup ${agent.workspaceSetupId ?? '-'}`);
      lines.push(`        unit ${agent.unit}: ${agent.unitState}${agent.enabled ? ', enabled' : ''}; ready: ${agent.ready ? 'yes' : 'no'}`);
      const stopped = agent.unitState === 'inactive' || agent.unitState === 'not-found';
      lines.push(`        memory ${agent.memoryBytes !== null ? `${Math.round(agent.memoryBytes / 1024 / 1024)} MiB` : stopped ? '-' : 'not accounted'}; restarts ${agent.restarts ?? '-'}`);
      lines.push(`        current ${agent.currentRevisionId ?? '-'}; served ${agent.servedRevisionId ?? '-'}${agent.servedAt ? ` since ${agent.servedAt}` : ''}`);
      lines.push(`        revisions: ${agent.revisions.map((r) => `${r.number}:${r.revisionId}`).join(', ') || '-'}`);
      const view = runtime.get(agent.agentId);
      if (view instanceof ComputeError) lines.push(`        runtime: could not be read (${view.failure} ${view.code})`);
      else if (view) lines.push(...describeRuntime(view));
    }
  }
  for (const problem of result.problems) lines.push(`    problem: ${problem.path}: ${problem.message}`);
  if (result.namespaces.length === 0) lines.push('    no Namespaces on this host');
  if (result.recentAudit.length > 0) {
    lines.push('    recent root operations (journalctl _UID=0 _TRANSPORT=syslog SYSLOG_IDENTIFIER=occ-ssh-helper):');
    for (const line of result.recentAudit) lines.push(`      ${line}`);
  }
  return lines;
}
