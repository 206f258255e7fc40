// delete-namespace: validate the whole deletion set, then stop units, remove the tree and the accounts.
import { renameSync } from 'node:fs';
import { accountMarker, accountMarkerPath, agentLayout, agentMarker, nsHash, type AccountMarker, type AgentLayout, type AgentMarker } from '@occ-ssh/markers';
import { DRIVER_ID, type AgentOwner, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { removeAccount, verifyRemovable } from '../accounts.js';
import { removeFile, removeTree, syncDir } from '../atomic-write.js';
import { namespacePaths, type OpContext } from '../context.js';
import { expectOwner, readMarker } from '../marker-io.js';
import { readCurrent, readRevisionDir, readServed, verifyNamespace, verifySnapshot, verifyUnitFile } from '../ownership.js';
import { listDir, lstatOrNull, ownershipError } from '../safe-read.js';
import { daemonReload, stopAndDisable } from '../systemd.js';

type Args = OperationArgs<'delete-namespace'>;

export async function deleteNamespace(ctx: OpContext, args: Args): Promise<OperationResult<'delete-namespace'>> {
  const ns = namespacePaths(ctx, args.namespace.id);
  const namespaces = `${ctx.runtime.root}/namespaces`;
  const doomed = `${namespaces}/.deleting-${nsHash(args.namespace.id)}`;
  const treeExisted = lstatOrNull(ns.dir) !== null;
  const accounts = ownedAccounts(ctx, args.namespace.id);

  // Security: the whole set is validated before the first effect, so a conflict stops nothing.
  let agents: AgentLayout[] = [];
  if (treeExisted) {
    verifyNamespace(ns.marker, args.namespace);
    agents = validateAgents(ctx, args, ns.agents, accounts);
  }
  for (const { path, marker } of accounts) await verifyRemovable(path, marker);

  if (treeExisted) {
    for (const agent of agents) {
      await stopAndDisable(agent.unitName);
    }
    for (const agent of agents) removeFile(agent.unitFile);
    if (agents.length > 0) await daemonReload();
    // Renamed away in one step, so an interrupted removal never leaves a half-deleted live Namespace.
    removeTree(doomed);
    ctx.session.beforeChange();
    renameSync(ns.dir, doomed);
    syncDir(namespaces);
  }
  removeTree(doomed);
  const accountsRemoved: string[] = [];
  for (const { path, marker } of accounts) {
    await removeAccount(ctx, path, marker);
    accountsRemoved.push(marker.account);
  }
  return { treeExisted, agentsRemoved: agents.length, accountsRemoved };
}

type OwnedAccount = { path: string; marker: AccountMarker };

/** Security: every Agent, its account, revisions, snapshots and unit must be ours before any gateway is stopped. */
function validateAgents(ctx: OpContext, args: Args, agentsDir: string, accounts: OwnedAccount[]): AgentLayout[] {
  const agents = [];
  for (const name of listDir(agentsDir)) {
    if (name.startsWith('.')) continue;
    const markerPath = `${agentsDir}/${name}/agent.json`;
    const marker = readMarker(markerPath, agentMarker);
    if (!marker) {
      const leftovers = listDir(`${agentsDir}/${name}`).filter((entry) => !entry.startsWith('.'));
      if (leftovers.length > 0) throw ownershipError(`${agentsDir}/${name}`, 'Agent directory has no Agent marker; refusing to delete it');
      continue;
    }
    expectOwner(markerPath, marker, { driver: DRIVER_ID, namespaceId: args.namespace.id });
    const owner = { namespace: args.namespace, agent: { id: marker.agentId }, servicePrincipal: { id: marker.servicePrincipalId } };
    const layout = agentLayout(ctx.runtime.root, ctx.runtime.systemdUnitDirectory, args.namespace.id, marker.agentId);
    if (layout.dir !== `${agentsDir}/${name}`) throw ownershipError(markerPath, 'Agent marker is stored under another Agent\'s directory');
    verifyAgentAccount(ctx, layout, marker, owner, accounts);
    const revisions = lstatOrNull(layout.revisions);
    if (revisions && !revisions.isDirectory()) throw ownershipError(layout.revisions, 'expected a directory, found a link or file');
    for (const revision of listDir(layout.revisions)) {
      if (revision.startsWith('.')) continue;
      const { paths, marker: staged } = readRevisionDir(layout, revision, owner);
      if (staged) verifySnapshot(paths, staged, marker.gid);
    }
    verifyUnitFile(layout, owner);
    readCurrent(layout);
    readServed(layout, owner);
    agents.push(layout);
  }
  return agents;
}

/** The Agent's account marker must be among the Namespace's, name this Agent, and record the Agent marker's UID/GID. */
function verifyAgentAccount(ctx: OpContext, layout: AgentLayout, agent: AgentMarker, owner: AgentOwner, accounts: OwnedAccount[]): void {
  const path = accountMarkerPath(ctx.runtime.root, agent.account);
  const account = accounts.find((entry) => entry.path === path)?.marker;
  if (!account) throw ownershipError(path, `account marker of Agent ${agent.agentId} is missing or belongs to another Namespace`);
  expectOwner(path, account, { agentId: owner.agent.id, servicePrincipalId: owner.servicePrincipal.id, state: 'active' });
  if (account.uid !== agent.uid || account.gid !== agent.gid) throw ownershipError(layout.marker, 'Agent marker records a different UID/GID than its account marker');
}

/** Account markers of this Namespace; each must parse, so a damaged one stops the deletion. */
function ownedAccounts(ctx: OpContext, namespaceId: string): OwnedAccount[] {
  const dir = `${ctx.runtime.root}/accounts`;
  const owned = [];
  for (const name of listDir(dir)) {
    if (name.startsWith('.') || !name.endsWith('.json')) continue;
    const path = `${dir}/${name}`;
    const marker = readMarker(path, accountMarker);
    if (!marker) continue;
    if (marker.namespaceId === namespaceId && marker.driver === DRIVER_ID) {
      if (`${marker.account}.json` !== name) throw ownershipError(path, 'account marker is stored under another account name');
      owned.push({ path, marker });
    }
  }
  return owned;
}
