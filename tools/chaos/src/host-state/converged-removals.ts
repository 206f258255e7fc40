// What converged means after the Namespace and removal operations, judged on the models before the trial and after the retry. Pure.
import { agentHash, nsHash, unitName } from '@occ-ssh/markers';
import type { OperationArgs } from '@occ-ssh/protocol';
import { allAgents } from './model.js';
import { agentOf, type Views } from './views.js';

/** The Namespace marker names this Namespace and agents/ exists. */
export function namespaceEnsured(args: OperationArgs<'ensure-namespace'>, { now }: Views): string[] {
  const problems: string[] = [];
  const ns = now.namespaces.get(nsHash(args.namespace.id));
  const marker = ns?.marker?.marker;
  if (!marker) problems.push('Namespace marker is missing');
  else if (marker.namespaceId !== args.namespace.id || marker.namespaceName !== args.namespace.name) problems.push('Namespace marker names another Namespace');
  if (now.byPath.get(`namespaces/${nsHash(args.namespace.id)}/agents`)?.type !== 'dir') problems.push('agents/ directory is missing');
  return problems;
}

/** The Agent, its unit, account and port are gone; every sibling comes through whole. */
export function agentDeleted(args: OperationArgs<'delete-agent'>, { was, now, after }: Views): string[] {
  const problems: string[] = [];
  const { owner } = args;
  const nsDir = nsHash(owner.namespace.id);
  const gone = agentOf(was, owner)?.marker?.marker;
  if (agentOf(now, owner)) problems.push('the Agent directory is still present');
  const twin = `${nsDir}/agents/.deleting-${agentHash(owner.agent.id)}`;
  if (now.deleting.includes(twin)) problems.push(`an unfinished removal is left: ${twin}`);
  for (const { path, namespaceId, agentId } of now.removals)
    if (namespaceId === undefined || (namespaceId === owner.namespace.id && agentId === owner.agent.id)) problems.push(`an unfinished removal is left: ${path}`);
  if (now.units.has(unitName(owner.agent.id))) problems.push('the unit file is still present');
  for (const name of new Set([
    gone?.account,
    ...[...was.accounts.values()].filter((p) => p.marker?.agentId === owner.agent.id && p.marker.namespaceId === owner.namespace.id).map((p) => p.marker!.account),
  ])) {
    if (!name) continue;
    if (now.accounts.has(name)) problems.push(`account marker ${name} is still present`);
    if (after.users.some((user) => user.name === name) || after.groups.some((group) => group.name === name)) problems.push(`account ${name} still exists`);
  }
  if (gone && allAgents(now).some((agent) => agent.marker?.marker?.port === gone.port)) problems.push(`port ${gone.port} is still recorded by an Agent marker`);
  // Every sibling comes through whole: its marker, unit and account as they were.
  for (const sibling of was.namespaces.get(nsDir)?.agents.values() ?? []) {
    const marker = sibling.marker?.marker;
    if (!marker || marker.agentId === owner.agent.id) continue;
    const kept = now.namespaces.get(nsDir)?.agents.get(sibling.dirName);
    if (kept?.marker?.entry.text !== sibling.marker?.entry.text) problems.push(`sibling ${marker.agentId} lost or changed its Agent marker`);
    if (kept?.home?.type !== 'dir' || kept.state?.type !== 'dir') problems.push(`sibling ${marker.agentId} lost home/ or state/`);
    const unit = unitName(marker.agentId);
    if (was.units.get(unit)?.activeState !== now.units.get(unit)?.activeState) problems.push(`sibling ${marker.agentId}'s unit changed state`);
    if (!after.users.some((user) => user.name === marker.account && user.uid === marker.uid)) problems.push(`sibling ${marker.agentId}'s account is gone`);
  }
  return problems;
}

/** The Namespace, its accounts and units are gone, with no removal left unfinished. */
export function namespaceDeleted(args: OperationArgs<'delete-namespace'>, { was, now, after }: Views): string[] {
  const problems: string[] = [];
  const id = args.namespace.id;
  if (now.namespaces.has(nsHash(id))) problems.push('the Namespace directory is still present');
  if (now.deleting.length > 0) problems.push(`an unfinished removal is left: ${now.deleting.join(', ')}`);
  for (const { path, namespaceId } of now.removals) if (namespaceId === undefined || namespaceId === id) problems.push(`an unfinished removal is left: ${path}`);
  const owned = [...was.accounts.values(), ...now.accounts.values()].map((parsed) => parsed.marker).filter((marker) => marker?.namespaceId === id);
  for (const marker of owned) {
    if (now.accounts.has(marker!.account)) problems.push(`account marker ${marker!.account} is still present`);
    if (after.users.some((user) => user.name === marker!.account) || after.groups.some((group) => group.name === marker!.account)) problems.push(`account ${marker!.account} still exists`);
  }
  const agents = was.namespaces.get(nsHash(id))?.agents;
  for (const agent of agents?.values() ?? []) {
    const agentId = agent.marker?.marker?.agentId;
    if (agentId && now.units.has(unitName(agentId))) problems.push(`unit of ${agentId} is still present`);
  }
  return problems;
}
