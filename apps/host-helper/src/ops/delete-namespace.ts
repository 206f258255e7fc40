// delete-namespace: validate the whole deletion set, then stop units, rename the tree into the removal
// area and remove the accounts, all under the host lock; the tree itself is removed after the lock is
// released (lock/removal-area.ts).
import { accountEntries, accountMarkerPath, agentEntries, deletingNamespacePath, revisionEntries, type AccountMarker, type AgentLayout, type AgentMarker } from '@occ-ssh/markers';
import { DRIVER_ID, type AgentOwner, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { verifyRemovable } from '../accounts/accounts.js';
import { namespacePaths, type OpContext } from '../context/context.js';
import { expectOwner, hostTree } from '../fs/marker-io.js';
import { readCurrent, readServed, verifyNamespace, verifySnapshot, verifyStoredRevision, verifyUnitFile } from '../fs/ownership.js';
import { indexedPorts, withNamespace, type PortRecord } from '../gateway/port-index.js';
import { applyPlanned } from '../plan/render.js';
import type { Plan, Step } from '../plan/steps.js';
import { listDir, lstatOrNull, ownershipError } from '../fs/safe-read.js';

type Args = OperationArgs<'delete-namespace'>;
type Result = OperationResult<'delete-namespace'>;
type OwnedAccount = { path: string; marker: AccountMarker };
type ValidAgent = AgentLayout & { account: string };

/** The whole deletion set, every part of it verified as this Namespace's. */
export interface DeleteState {
  namespaceId: string;
  dir: string;
  /** Where an earlier version renamed the tree before removing it. */
  deleting: string;
  treeExisted: boolean;
  /** A tree such an earlier deletion left there, unfinished. */
  twinExists: boolean;
  agents: Pick<AgentLayout, 'unitName' | 'unitFile' | 'setupUnitName'>[];
  accounts: OwnedAccount[];
  /** Every Agent's port from the port index, when it describes the tree; null otherwise. */
  ports: PortRecord | null;
}

export async function deleteNamespace(ctx: OpContext, args: Args): Promise<Result> {
  const plan = await deleteNamespacePlan(ctx, args);
  await applyPlanned(ctx, plan.steps);
  return plan.result;
}

/** What deleteNamespace reads and plans, for it and for plan-operation alike. */
export async function deleteNamespacePlan(ctx: OpContext, args: Args): Promise<Plan<Result>> {
  return planDeleteNamespace(await readDeleteNamespace(ctx, args));
}

/** Security: the whole set is validated before the first effect, so a conflict stops nothing. */
async function readDeleteNamespace(ctx: OpContext, args: Args): Promise<DeleteState> {
  const ns = namespacePaths(ctx, args.namespace.id);
  const deleting = deletingNamespacePath(ctx.runtime.root, args.namespace.id);
  const treeExisted = lstatOrNull(ns.dir) !== null;
  const accounts = ownedAccounts(ctx, args.namespace.id);
  let agents: ValidAgent[] = [];
  if (treeExisted) {
    verifyNamespace(ns.marker, args.namespace);
    agents = validateAgents(ctx, args, ns.agents, accounts);
  }
  // Each account's user and group must be ours before anything is stopped.
  for (const { path, marker } of accounts) await verifyRemovable(ctx.runner, path, marker);
  const ports = indexedPorts(ctx.runtime.root);
  return { namespaceId: args.namespace.id, dir: ns.dir, deleting, treeExisted, twinExists: lstatOrNull(deleting) !== null, agents, accounts, ports };
}

export function planDeleteNamespace({ namespaceId, dir, deleting, treeExisted, twinExists, agents, accounts, ports }: DeleteState): Plan<Result> {
  const steps: Step[] = [];
  if (treeExisted) {
    // Workspace setup runs without the host lock: each Agent's setup unit is stopped before its tree goes.
    for (const agent of agents) steps.push({ op: 'stop-native-setup', unit: agent.setupUnitName });
    for (const agent of agents) steps.push({ op: 'stop-and-disable', unit: agent.unitName });
    for (const agent of agents) steps.push({ op: 'remove-file', path: agent.unitFile });
    if (agents.length > 0) steps.push({ op: 'daemon-reload' });
  }
  // Security: with every process of its Agents gone, the tree is renamed where nothing of theirs
  // reaches it, so its removal need not run under the lock. A tree an earlier version left renamed
  // away goes the same way.
  if (twinExists) steps.push({ op: 'stage-removal', path: deleting, namespaceId });
  if (treeExisted) steps.push({ op: 'stage-removal', path: dir, namespaceId });
  if ((treeExisted || twinExists) && ports) steps.push({ op: 'record-ports', ports: withNamespace(ports, dir, false) });
  // Each account after its unit and tree: user, group and its marker, so a retry finds what is left.
  for (const { path, marker } of accounts) steps.push({ op: 'remove-account', marker: path, account: marker });
  // Last: this Namespace's removals (its Agents' included, and any a cut deletion left), after the lock is released.
  steps.push({ op: 'finish-removals', namespaceId });
  return { steps, result: { treeExisted, agentsRemoved: agents.length, accountsRemoved: accounts.map(({ marker }) => marker.account) } };
}

/** Security: every Agent, its account, revisions, snapshots and unit must be ours before any gateway is stopped. */
function validateAgents(ctx: OpContext, args: Args, agentsDir: string, accounts: OwnedAccount[]): ValidAgent[] {
  const agents = [];
  for (const entry of agentEntries(ctx.runtime.root, ctx.runtime.systemdUnitDirectory, agentsDir, hostTree)) {
    const { marker, layout } = entry;
    if (!marker || !layout) {
      const leftovers = listDir(entry.dir).filter((name) => !name.startsWith('.'));
      if (leftovers.length > 0) throw ownershipError(entry.dir, 'Agent directory has no Agent marker; refusing to delete it');
      continue;
    }
    expectOwner(entry.markerPath, marker, { driver: DRIVER_ID, namespaceId: args.namespace.id });
    const owner = { namespace: args.namespace, agent: { id: marker.agentId }, servicePrincipal: { id: marker.servicePrincipalId } };
    if (layout.dir !== entry.dir) throw ownershipError(entry.markerPath, "Agent marker is stored under another Agent's directory");
    verifyAgentAccount(ctx, layout, marker, owner, accounts);
    const revisions = lstatOrNull(layout.revisions);
    if (revisions && !revisions.isDirectory()) throw ownershipError(layout.revisions, 'expected a directory, found a link or file');
    for (const revision of revisionEntries(layout, hostTree)) {
      if (!revision.marker) continue;
      verifyStoredRevision({ ...revision, marker: revision.marker }, owner);
      verifySnapshot(revision.layout, revision.marker, marker.gid);
    }
    verifyUnitFile(layout, owner);
    readCurrent(layout);
    readServed(layout, owner);
    agents.push({ ...layout, account: marker.account });
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
  return accountEntries(ctx.runtime.root, hostTree)
    .filter(({ marker }) => marker.namespaceId === namespaceId && marker.driver === DRIVER_ID)
    .map(({ path, fileAccount, marker }) => {
      if (fileAccount !== marker.account) throw ownershipError(path, 'account marker is stored under another account name');
      return { path, marker };
    });
}
