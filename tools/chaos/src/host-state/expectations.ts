// What "converged" means after each mutating operation succeeded: the intended host state,
// judged on the Listing taken before the trial and the one taken after the retry. Pure.
import { agentHash, canonicalJson, nsHash, revHash, sha256Hex, unitName, workspaceSetupMarker } from '@occ-ssh/markers';
import { assertNever, type AgentOwner, type MutatingOperation, type OperationArgs } from '@occ-ssh/protocol';
import type { Listing } from '../host/listing.js';
import { allAgents, buildModel, currentRevision, type AgentModel, type HostModel } from './model.js';

export type { MutatingOperation } from '@occ-ssh/protocol';

export type MutatingArgs = {
  [O in MutatingOperation]: { operation: O; args: OperationArgs<O> };
}[MutatingOperation];

function agentOf(model: HostModel, owner: AgentOwner): AgentModel | undefined {
  return model.namespaces.get(nsHash(owner.namespace.id))?.agents.get(agentHash(owner.agent.id));
}

/** The problems that keep `after` from being the intended state of `op`; empty when converged. */
export function convergenceProblems(op: MutatingArgs, before: Listing, after: Listing): string[] {
  const was = buildModel(before);
  const now = buildModel(after);
  const problems: string[] = [];
  switch (op.operation) {
    case 'ensure-namespace': {
      const ns = now.namespaces.get(nsHash(op.args.namespace.id));
      const marker = ns?.marker?.marker;
      if (!marker) problems.push('Namespace marker is missing');
      else if (marker.namespaceId !== op.args.namespace.id || marker.namespaceName !== op.args.namespace.name) problems.push('Namespace marker names another Namespace');
      if (now.byPath.get(`namespaces/${nsHash(op.args.namespace.id)}/agents`)?.type !== 'dir') problems.push('agents/ directory is missing');
      break;
    }
    case 'prepare-revision': {
      const { owner, revision, configuration } = op.args;
      const agent = agentOf(now, owner);
      const marker = agent?.marker?.marker;
      if (!agent || !marker) {
        problems.push('Agent marker is missing');
        break;
      }
      if (marker.servicePrincipalId !== owner.servicePrincipal.id) problems.push('Agent marker names another ServicePrincipal');
      const account = now.accounts.get(marker.account)?.marker;
      if (account?.state !== 'active') problems.push('account marker is not active');
      if (!after.users.some((user) => user.name === marker.account && user.uid === marker.uid)) problems.push('account user is missing');
      if (agent.home?.type !== 'dir' || agent.state?.type !== 'dir') problems.push('home/ or state/ is missing');
      if (configuration.auth !== 'trusted-proxy' && agent.password?.type !== 'file') problems.push('managed password file is missing');
      const staged = agent.revisions.get(revHash(revision.id));
      const rm = staged?.marker?.marker;
      if (!rm) problems.push('revision marker is missing');
      else {
        if (rm.revisionId !== revision.id || rm.revisionNumber !== revision.number || rm.configurationHash !== configuration.hash) problems.push('revision marker records another revision');
        if (staged.config?.sha256 !== configuration.hash) problems.push('snapshot bytes differ from the document');
      }
      // Preparation never cuts over: current, served.json and the unit are what they were.
      const previous = agentOf(was, owner);
      if ((previous ? currentRevision(previous) : null) !== currentRevision(agent)) problems.push('prepare changed current');
      if ((previous?.served?.entry.text ?? null) !== (agent.served?.entry.text ?? null)) problems.push('prepare changed served.json');
      const unit = unitName(owner.agent.id);
      if (was.units.has(unit) !== now.units.has(unit)) problems.push('prepare created or removed the unit file');
      break;
    }
    case 'activate-revision': {
      const { owner, revision } = op.args;
      const agent = agentOf(now, owner);
      const marker = agent?.marker?.marker;
      if (!agent || !marker) {
        problems.push('Agent marker is missing');
        break;
      }
      if (currentRevision(agent) !== revHash(revision.id)) problems.push(`current does not point at ${revision.id}`);
      const served = agent.served?.marker;
      if (!served || served.revisionId !== revision.id || served.configurationHash !== op.args.configurationHash) problems.push(`served.json does not name ${revision.id}`);
      const unit = now.units.get(unitName(owner.agent.id));
      if (!unit) problems.push('unit file is missing');
      else {
        if (unit.activeState !== 'active') problems.push(`unit is ${unit.activeState}, not active`);
        if (unit.unitFileState !== 'enabled') problems.push(`unit is ${unit.unitFileState}, not enabled`);
      }
      if (after.ready[String(marker.port)] !== true) problems.push(`/readyz on port ${marker.port} did not answer 200`);
      break;
    }
    case 'stop-revision':
    case 'retire-revision': {
      const { owner, revision } = op.args;
      const previous = agentOf(was, owner);
      const agent = agentOf(now, owner);
      if (!previous?.marker?.marker) break; // nothing to stop or retire: the helper answers without effects
      const target = revHash(revision.id);
      const wasCurrent = currentRevision(previous) === target || (op.operation === 'stop-revision' && currentRevision(previous) === null);
      if (!agent) {
        problems.push('the Agent disappeared');
        break;
      }
      if (wasCurrent) {
        if (agent.current) problems.push('current is still present');
        if (agent.served) problems.push('served.json is still present');
        const unit = now.units.get(unitName(owner.agent.id));
        if (unit && (unit.activeState === 'active' || unit.activeState === 'activating' || unit.unitFileState === 'enabled')) problems.push(`unit is still ${unit.activeState}/${unit.unitFileState}`);
      } else if (currentRevision(previous) !== currentRevision(agent)) problems.push('the current pointer of another revision changed');
      if (op.operation === 'retire-revision') {
        if (agent.revisions.has(target)) problems.push('the retired revision directory is still present');
        for (const name of previous.revisions.keys())
          if (name !== target && previous.revisions.get(name)?.marker && !agent.revisions.get(name)?.marker) problems.push(`another revision ${name} was removed`);
      } else if (previous.revisions.get(target)?.marker && !agent.revisions.get(target)?.marker) problems.push('stop removed the snapshot');
      if (agent.home?.type !== 'dir' || agent.state?.type !== 'dir') problems.push('home/ or state/ was removed');
      break;
    }
    case 'delete-agent': {
      const { owner } = op.args;
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
      break;
    }
    case 'delete-namespace': {
      const id = op.args.namespace.id;
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
      break;
    }
    case 'setup-workspace':
      problems.push(...setupProblems(op.args, now, after));
      break;
    default:
      return assertNever(op, 'mutating operation');
  }
  return [...new Set(problems)];
}

/**
 * setup-workspace converged: the marker records exactly this setup, every document is the submitted
 * text, no native-setup unit is left running or failed, and no scratch or temp file is left in state/
 * or the Agent directory. (That activation then succeeds is the lanes' next step.)
 */
function setupProblems(args: OperationArgs<'setup-workspace'>, now: HostModel, after: Listing): string[] {
  const problems: string[] = [];
  const agent = agentOf(now, args.owner);
  if (!agent) return ['the Agent directory is missing'];
  const dir = `namespaces/${nsHash(args.owner.namespace.id)}/agents/${agent.dirName}`;
  const text = now.byPath.get(`${dir}/workspace-setup.json`)?.text;
  const parsed = text === undefined ? undefined : parseMarker(text);
  const digests = Object.fromEntries(args.setup.documents.map((document) => [document.name, sha256Hex(document.content)]));
  if (text === undefined) problems.push('the workspace setup marker is missing');
  else if (!parsed) problems.push('the workspace setup marker does not parse');
  else {
    if (parsed.namespaceId !== args.owner.namespace.id || parsed.agentId !== args.owner.agent.id) problems.push('the workspace setup marker names another Agent');
    if (parsed.setupId !== args.setup.id) problems.push(`the workspace setup marker records ${parsed.setupId}, not ${args.setup.id}`);
    if (canonicalJson(parsed.documents) !== canonicalJson(digests)) problems.push('the workspace setup marker records other document digests');
  }
  for (const [name, digest] of Object.entries(digests)) {
    const entry = now.byPath.get(`${dir}/state/workspace/${name}`);
    if (entry?.type !== 'file' || entry.sha256 !== digest) problems.push(`${name} is not the submitted text`);
  }
  for (const unit of after.setupUnits) {
    if (unit.activeState !== 'inactive') problems.push(`native-setup unit ${unit.name} is ${unit.activeState}`);
  }
  for (const entry of after.entries) {
    if (!entry.path.startsWith(`${dir}/`)) continue;
    const rest = entry.path.slice(dir.length + 1);
    if (rest === 'state/.occ-workspace-setup' || rest.startsWith('state/.occ-workspace-setup/')) problems.push(`the scratch configuration is left: ${rest}`);
    else if (/^state\/workspace\/\.[^/]*\.occ-/.test(rest)) problems.push(`a document temp is left: ${rest}`);
    else if (rest.startsWith('.workspace-setup.json')) problems.push(`a marker temp is left: ${rest}`);
  }
  return problems;
}

function parseMarker(text: string) {
  try {
    const parsed = workspaceSetupMarker.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The gateway port of an Agent in a listing, if it has one. */
export function portOf(listing: Listing, owner: AgentOwner): number | undefined {
  return agentOf(buildModel(listing), owner)?.marker?.marker?.port;
}
