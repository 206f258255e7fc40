// delete-namespace: validate the whole deletion set, then stop units, rename the tree away, empty each Agent's home and state as its account, remove the rest as root, then the accounts.
import {
  accountEntries,
  accountMarkerPath,
  agentEntries,
  deletingNamespacePath,
  revisionEntries,
  type AccountMarker,
  type AgentEntry,
  type AgentLayout,
  type AgentMarker,
  type TreeReader,
} from '@occ-ssh/markers';
import { DRIVER_ID, type AgentOwner, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { verifyRemovable } from '../accounts.js';
import { namespacePaths, type OpContext } from '../context.js';
import { expectOwner, hostTree } from '../marker-io.js';
import { readCurrent, readServed, verifyNamespace, verifySnapshot, verifyStoredRevision, verifyUnitFile } from '../ownership.js';
import { applyPlanned } from '../plan/render.js';
import type { Plan, Step } from '../plan/steps.js';
import { listDir, lstatOrNull, ownershipError } from '../safe-read.js';

type Args = OperationArgs<'delete-namespace'>;
type Result = OperationResult<'delete-namespace'>;
type OwnedAccount = { path: string; marker: AccountMarker };
/** An Agent's home/ or state/ inside the renamed-away tree, with the account that empties it. */
type AgentData = { path: string; uid: number; gid: number };
/** An owned account whose user still exists with its recorded IDs: the only ones a removal runs as. */
type LiveAccount = { account: string; uid: number; gid: number };
type ValidAgent = AgentLayout & { account: string };

/** The whole deletion set, every part of it verified as this Namespace's. */
export interface DeleteState {
  dir: string;
  /** Where the tree is renamed before it is removed. */
  deleting: string;
  treeExisted: boolean;
  agents: Pick<AgentLayout, 'unitName' | 'unitFile' | 'setupUnitName'>[];
  /** The live tree's Agent home/ and state/, at the paths they have once renamed away. */
  data: AgentData[];
  /** A tree an earlier, unfinished deletion renamed away (null when there is none), and its Agent data. */
  twin: AgentData[] | null;
  accounts: OwnedAccount[];
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
  const live: LiveAccount[] = [];
  for (const { path, marker } of accounts) {
    const { user } = await verifyRemovable(ctx.runner, path, marker);
    if (user && marker.uid !== undefined && marker.gid !== undefined) live.push({ account: marker.account, uid: marker.uid, gid: marker.gid });
  }
  const data = agents.flatMap((layout) => {
    const account = live.find((entry) => entry.account === layout.account);
    return account ? [layout.home, layout.state].map((path) => ({ path: `${deleting}${path.slice(ns.dir.length)}`, uid: account.uid, gid: account.gid })) : [];
  });
  return { dir: ns.dir, deleting, treeExisted, agents, data, twin: twinData(ctx, deleting, args.namespace.id, live), accounts };
}

/** The twin's markers are read, not trusted blindly: an unreadable one only means no account pass for that Agent. */
const lenientTree: TreeReader = {
  list: listDir,
  marker: (path, schema) => {
    try {
      return hostTree.marker(path, schema);
    } catch {
      return null;
    }
  },
};

/**
 * Security: who empties each home/ and state/ of a tree an earlier deletion renamed away. Only one
 * of this Namespace's live accounts, named by the Agent's marker (or, with the marker gone, the
 * directory's owner and group matching one): never any other UID. Without one, root's bounded
 * removal of the whole tree does it.
 */
function twinData(ctx: OpContext, deleting: string, namespaceId: string, live: LiveAccount[]): AgentData[] | null {
  const stat = lstatOrNull(deleting);
  if (stat === null) return null;
  if (!stat.isDirectory()) return [];
  return agentEntries(ctx.runtime.root, ctx.runtime.systemdUnitDirectory, `${deleting}/agents`, lenientTree).flatMap((entry) =>
    [`${entry.dir}/home`, `${entry.dir}/state`].flatMap((path) => {
      const account = accountOfData(entry, path, namespaceId, live);
      return account ? [{ path, uid: account.uid, gid: account.gid }] : [];
    }),
  );
}

function accountOfData({ marker }: AgentEntry, path: string, namespaceId: string, live: LiveAccount[]): LiveAccount | undefined {
  if (marker) {
    if (marker.driver !== DRIVER_ID || marker.namespaceId !== namespaceId) return undefined;
    return live.find((entry) => entry.account === marker.account && entry.uid === marker.uid && entry.gid === marker.gid);
  }
  const stat = lstatOrNull(path);
  return stat?.isDirectory() ? live.find((entry) => entry.uid === stat.uid && entry.gid === stat.gid) : undefined;
}

export function planDeleteNamespace({ dir, deleting, treeExisted, agents, data, twin, accounts }: DeleteState): Plan<Result> {
  const steps: Step[] = [];
  const removal = (dirs: AgentData[]): Step[] => [...dirs.map((entry): Step => ({ op: 'empty-as-account', ...entry })), { op: 'remove-tree', path: deleting }];
  if (treeExisted) {
    // Workspace setup runs without the host lock: each Agent's setup unit is stopped before its tree goes.
    for (const agent of agents) steps.push({ op: 'stop-native-setup', unit: agent.setupUnitName });
    for (const agent of agents) steps.push({ op: 'stop-and-disable', unit: agent.unitName });
    for (const agent of agents) steps.push({ op: 'remove-file', path: agent.unitFile });
    if (agents.length > 0) steps.push({ op: 'daemon-reload' });
    // A tree an earlier deletion left renamed away goes first, so the rename finds its name free.
    if (twin) steps.push(...removal(twin));
    // Renamed away in one step, so an interrupted removal never leaves a half-deleted live Namespace.
    steps.push({ op: 'rename', from: dir, to: deleting }, ...removal(data));
  } else if (twin) {
    // An unfinished deletion: resumed where it stopped.
    steps.push(...removal(twin));
  }
  // Each account after its tree (the tree is emptied as the account), then user, group and its marker, so a retry finds what is left.
  for (const { path, marker } of accounts) steps.push({ op: 'remove-account', marker: path, account: marker });
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
