// The occ-ssh commands, each the OCC worker's sequence of driver calls for one operator intent.
import { ComputeError, type InventoryResult } from '@occ-ssh/protocol';
import { hostFor, type SshComputeConfiguration } from '../config/index.js';
import type { SshComputeDriver } from '../driver.js';
import type { AgentRevision } from '../types.js';
import type { CliOptions } from './args.js';
import { Ledger, defaultLedgerPath } from './ledger.js';
import type { Reporter } from './report.js';
import { namespaceFrom, resourcesFrom } from './resources.js';

export interface CommandContext {
  options: CliOptions;
  config: SshComputeConfiguration;
  driver: SshComputeDriver;
  report: Reporter;
}

export async function preflight({ driver, config, report }: CommandContext) {
  await report.step(`preflight (${Object.keys(config.hosts).length} host(s))`, () => driver.preflight());
  return { hosts: Object.keys(config.hosts) };
}

/** The OCC worker flow: bind, validate, prepare, commit (compare-and-set), activate, retire the previous revision. */
export async function deploy({ options, driver, report }: CommandContext) {
  const { binding, revision } = resourcesFrom(options);
  const ledger = new Ledger(options.ledger ?? defaultLedgerPath());
  const before = ledger.entry(revision.namespaceId, revision.agentId);
  const host = `${binding.namespace.name}`;
  report.line(`deploy ${revision.agentId} revision ${revision.revision} (${revision.id}) to Namespace ${binding.namespace.name}`);
  const ensured = await report.step('ensure namespace', () => driver.ensureNamespace(binding.namespace));
  if (!ensured.namespaceReady) throw new ComputeError(ensured.failure === 'permanent' ? 'ownership' : 'internal', `Namespace ${binding.namespace.name} could not be prepared on its host`, { host });
  await report.step('bind agent', async () => driver.bindAgent(binding));
  await report.step('validate harness auth', async () => driver.validateHarnessAuth(revision.harness, revision.harnessAuth, revision.configuration, revision.secretBindings));
  const prepared = await report.step('prepare revision', () => driver.prepareRevision(revision), (r) => (r.ready ? undefined : 'superseded by a newer revision'));
  if (!prepared.ready) return { revisionId: revision.id, ready: false, active: before?.active.id ?? null };
  const expected = before?.active.id ?? null;
  const committed = await report.step('commit active revision (ledger compare-and-set)', () => ledger.compareAndSet(revision, expected));
  await report.step('activate (unit, current, restart, readiness)', () => driver.activateRevision(revision));
  const previous = committed.previous && committed.previous.id !== revision.id ? committed.previous : null;
  if (previous) await report.step(`retire previous revision ${previous.revision}`, () => driver.retireRevision(previous));
  const endpoint = await report.step('gateway address', () => driver.gatewayAddress(revision), (e) => `${e.host} ${e.url} (host loopback)`);
  return { revisionId: revision.id, ready: true, active: revision.id, retired: previous?.id ?? null, endpoint };
}

function revisionFor(options: CliOptions): { revision: AgentRevision; bindingOnly: ReturnType<typeof resourcesFrom>['binding'] } {
  const { binding, revision } = resourcesFrom(options);
  return { revision, bindingOnly: binding };
}

export async function stop({ options, driver, report }: CommandContext) {
  const { revision, bindingOnly } = revisionFor(options);
  driver.bindAgent(bindingOnly);
  await report.step(`stop ${revision.agentId} (revision ${revision.revision})`, () => driver.stopRevision(revision));
  return { stopped: revision.id };
}

export async function retire({ options, driver, report }: CommandContext) {
  const { revision, bindingOnly } = revisionFor(options);
  driver.bindAgent(bindingOnly);
  await report.step(`retire revision ${revision.revision} (${revision.id})`, () => driver.retireRevision(revision));
  return { retired: revision.id };
}

export async function deleteNamespace({ options, driver, report }: CommandContext) {
  const namespace = namespaceFrom(options);
  const result = await report.step(`delete namespace ${namespace.name}`, () => driver.deleteNamespace(namespace));
  if (!result.namespaceDeleted) {
    throw new ComputeError(result.failure === 'permanent' ? 'ownership' : 'internal', `Namespace ${namespace.name} was not deleted; see the log for the host's answer`, { host: namespace.name });
  }
  await new Ledger(options.ledger ?? defaultLedgerPath()).remove(namespace.id);
  return result;
}

export async function status({ options, config, driver, report }: CommandContext) {
  const names = options.namespace ? [options.namespace] : Object.keys(config.hosts);
  const hosts: Record<string, InventoryResult> = {};
  for (const name of names) {
    const host = hostFor(config, name);
    hosts[name] = await report.step(`inventory of ${name} (${host.address})`, () => driver.inventory(name));
    for (const line of describeInventory(hosts[name]!)) report.line(line);
  }
  return { hosts };
}

export function describeInventory(result: InventoryResult): string[] {
  const lines: string[] = [];
  for (const ns of result.namespaces) {
    lines.push(`    Namespace ${ns.namespaceName} (${ns.namespaceId}): ${ns.agents.length} Agent(s)`);
    for (const agent of ns.agents) {
      lines.push(`      Agent ${agent.agentId}  account ${agent.account} (${agent.uid}:${agent.gid})  port ${agent.port}`);
      lines.push(`        unit ${agent.unit}: ${agent.unitState}${agent.enabled ? ', enabled' : ''}; ready: ${agent.ready ? 'yes' : 'no'}`);
      lines.push(`        current ${agent.currentRevisionId ?? '-'}; served ${agent.servedRevisionId ?? '-'}${agent.servedAt ? ` since ${agent.servedAt}` : ''}`);
      lines.push(`        revisions: ${agent.revisions.map((r) => `${r.number}:${r.revisionId}`).join(', ') || '-'}`);
    }
  }
  for (const problem of result.problems) lines.push(`    problem: ${problem.path}: ${problem.message}`);
  if (result.namespaces.length === 0) lines.push('    no Namespaces on this host');
  return lines;
}
