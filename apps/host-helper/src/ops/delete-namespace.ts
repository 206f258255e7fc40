// delete-namespace: validate the whole deletion set, then stop units, remove the tree and the accounts.
import { renameSync } from 'node:fs';
import { accountMarker, agentLayout, agentMarker, nsHash, type AccountMarker } from '@occ-ssh/markers';
import { DRIVER_ID, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { removeAccount } from '../accounts.js';
import { namespacePaths, type OpContext } from '../context.js';
import { listDir, lstatOrNull, ownershipError, removeFile, removeTree, syncDir } from '../fsx.js';
import { expectOwner, readMarker } from '../marker-io.js';
import { readCurrent, readRevision, verifyNamespace, verifyUnitFile } from '../ownership.js';
import { daemonReload, stopAndDisable } from '../systemd.js';

type Args = OperationArgs<'delete-namespace'>;

export async function deleteNamespace(ctx: OpContext, args: Args): Promise<OperationResult<'delete-namespace'>> {
  const ns = namespacePaths(ctx, args.namespace.id);
  const namespaces = `${ctx.runtime.root}/namespaces`;
  const doomed = `${namespaces}/.deleting-${nsHash(args.namespace.id)}`;
  const treeExisted = lstatOrNull(ns.dir) !== null;
  const accounts = ownedAccounts(ctx, args.namespace.id);

  let agentsRemoved = 0;
  if (treeExisted) {
    verifyNamespace(ns.marker, args.namespace);
    const agents = validateAgents(ctx, args, ns.agents);
    for (const agent of agents) {
      ctx.session.checkpoint();
      await stopAndDisable(agent.unitName);
    }
    ctx.session.checkpoint();
    for (const agent of agents) removeFile(agent.unitFile);
    if (agents.length > 0) await daemonReload();
    ctx.session.checkpoint();
    // Renamed away in one step, so an interrupted removal never leaves a half-deleted live Namespace.
    removeTree(doomed);
    renameSync(ns.dir, doomed);
    syncDir(namespaces);
    agentsRemoved = agents.length;
  }
  removeTree(doomed);
  const accountsRemoved: string[] = [];
  for (const { path, marker } of accounts) {
    ctx.session.checkpoint();
    await removeAccount(ctx, path, marker);
    accountsRemoved.push(marker.account);
  }
  return { treeExisted, agentsRemoved, accountsRemoved };
}

/** Security: every Agent, revision and unit in the set must be ours before any gateway is stopped. */
function validateAgents(ctx: OpContext, args: Args, agentsDir: string) {
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
    for (const revision of listDir(layout.revisions)) {
      if (revision.startsWith('.')) continue;
      const dir = `${layout.revisions}/${revision}`;
      readRevision({ dir, currentTarget: `revisions/${revision}`, config: `${dir}/openclaw.json`, marker: `${dir}/revision.json` }, owner);
    }
    verifyUnitFile(layout, owner);
    readCurrent(layout);
    agents.push(layout);
  }
  return agents;
}

/** Account markers of this Namespace; each must parse, so a damaged one stops the deletion. */
function ownedAccounts(ctx: OpContext, namespaceId: string): { path: string; marker: AccountMarker }[] {
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
