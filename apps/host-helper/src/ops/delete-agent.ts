// delete-agent: verify one Agent's markers, account and unit, then stop and remove its unit, rename its
// directory away, empty its home and state as its account, remove the rest as root, then the account.
import { deletingAgentPath, revisionEntries, type AccountMarker, type AgentLayout, type AgentMarker } from '@occ-ssh/markers';
import type { AgentOwner, OperationArgs, OperationResult } from '@occ-ssh/protocol';
import { readRemovableAccount, verifyAccount } from '../accounts.js';
import { TEMP_MARK } from '../atomic-write.js';
import { agentPaths, namespacePaths, type OpContext } from '../context.js';
import { hostTree } from '../marker-io.js';
import { readAgent, readCurrent, readServed, verifyNamespace, verifySnapshot, verifyStoredRevision, verifyUnitFile } from '../ownership.js';
import { applyPlanned } from '../plan/render.js';
import { siblingTempPrefix, type Plan, type Step } from '../plan/steps.js';
import { listDir, lstatOrNull, ownershipError } from '../safe-read.js';

type Args = OperationArgs<'delete-agent'>;
type Result = OperationResult<'delete-agent'>;

/** What deletion found, every part of it verified as this Agent's. */
export interface DeleteAgentState {
  layout: AgentLayout;
  agentsDir: string;
  /** Where the directory is renamed before it is removed. */
  deleting: string;
  /** The live directory is there (with this Agent's marker, or empty but for temps). */
  dirExists: boolean;
  /** A directory an earlier, cut deletion renamed away. */
  twinExists: boolean;
  agent: AgentMarker | null;
  unitFileExists: boolean;
  account: { path: string; marker: AccountMarker; userExists: boolean } | null;
}

export async function deleteAgent(ctx: OpContext, args: Args): Promise<Result> {
  const plan = await deleteAgentPlan(ctx, args);
  await applyPlanned(ctx, plan.steps);
  return plan.result;
}

/** What deleteAgent reads and plans, for it and for plan-operation alike. */
export async function deleteAgentPlan(ctx: OpContext, args: Args): Promise<Plan<Result>> {
  return planDeleteAgent(await readDeleteAgent(ctx, args.owner));
}

/** Security: the Namespace, the Agent, its revisions, unit and account are verified before the first effect, so a conflict changes nothing. */
async function readDeleteAgent(ctx: OpContext, owner: AgentOwner): Promise<DeleteAgentState> {
  const ns = namespacePaths(ctx, owner.namespace.id);
  const layout = agentPaths(ctx, owner);
  const deleting = deletingAgentPath(ctx.runtime.root, owner.namespace.id, owner.agent.id);
  const nsExists = lstatOrNull(ns.dir) !== null;
  if (nsExists) verifyNamespace(ns.marker, owner.namespace);
  const agent = nsExists ? readAgent(layout, owner) : null;
  const dirExists = nsExists && lstatOrNull(layout.dir) !== null;
  if (dirExists && !agent) refuseForeignLeftovers(layout.dir);
  const account = await readRemovableAccount(ctx, owner);
  if (agent) {
    // The account the Agent records must be the live one: a reused UID is never emptied as.
    const live = await verifyAccount(ctx, owner);
    if (agent.account !== live.name || agent.uid !== live.uid || agent.gid !== live.gid) throw ownershipError(layout.marker, 'Agent marker records a different account than the live one');
    verifyAgentTree(layout, owner, agent.gid);
  }
  const unitFileExists = verifyUnitFile(layout, owner) !== null;
  return { layout, agentsDir: ns.agents, deleting, dirExists, twinExists: lstatOrNull(deleting) !== null, agent, unitFileExists, account };
}

/** Security: every stored revision, snapshot and pointer must be this Agent's, as Namespace deletion checks them. */
function verifyAgentTree(layout: AgentLayout, owner: AgentOwner, gid: number): void {
  const revisions = lstatOrNull(layout.revisions);
  if (revisions && !revisions.isDirectory()) throw ownershipError(layout.revisions, 'expected a directory, found a link or file');
  for (const revision of revisionEntries(layout, hostTree)) {
    if (!revision.marker) continue;
    verifyStoredRevision({ ...revision, marker: revision.marker }, owner);
    verifySnapshot(revision.layout, revision.marker, gid);
  }
  readCurrent(layout);
  readServed(layout, owner);
}

/** An Agent directory without its marker is removed only when it holds nothing but temps (an interrupted prepare). */
function refuseForeignLeftovers(dir: string): void {
  if (!lstatOrNull(dir)?.isDirectory()) throw ownershipError(dir, 'expected a directory; refusing to follow or replace it');
  const leftovers = listDir(dir).filter((name) => !(name.startsWith('.') && name.includes(TEMP_MARK)));
  if (leftovers.length > 0) throw ownershipError(dir, 'Agent directory exists without its Agent marker; refusing to delete it');
}

export function planDeleteAgent({ layout, agentsDir, deleting, dirExists, twinExists, agent, unitFileExists, account }: DeleteAgentState): Plan<Result> {
  // Workspace setup runs without the host lock: its unit is stopped before anything it could be using goes.
  const steps: Step[] = dirExists ? [{ op: 'stop-native-setup', unit: layout.setupUnitName }] : [];
  // The same unit steps Namespace deletion and retirement use; the unit goes before the directory it runs from.
  if (dirExists || unitFileExists) steps.push({ op: 'stop-and-disable', unit: layout.unitName }, { op: 'remove-file', path: layout.unitFile }, { op: 'daemon-reload' });
  // Only the account's own home/ and state/ are emptied as it, and only while it exists with its recorded IDs.
  const ids = account?.userExists && account.marker.uid !== undefined && account.marker.gid !== undefined ? { uid: account.marker.uid, gid: account.marker.gid } : null;
  const removal: Step[] = [...(ids ? [`${deleting}/home`, `${deleting}/state`].map((path): Step => ({ op: 'empty-as-account', path, ...ids })) : []), { op: 'remove-tree', path: deleting }];
  // A directory an earlier deletion left renamed away goes first, so the rename finds its name free.
  if (twinExists) steps.push(...removal);
  // Renamed away in one step: the port is free from here on, and a cut removal never leaves a half-deleted live Agent.
  if (dirExists) steps.push({ op: 'rename', from: layout.dir, to: deleting }, ...removal);
  if (dirExists || twinExists) steps.push({ op: 'sweep-temps', dir: agentsDir, prefix: siblingTempPrefix(layout.dir) });
  // The account last, after the tree it empties: user, group, then its marker, so a retry finds what is left.
  if (account) steps.push({ op: 'remove-account', marker: account.path, account: account.marker });
  return {
    steps,
    result: { agentExisted: dirExists || twinExists, accountRemoved: account !== null, unitRemoved: unitFileExists, portFreed: agent?.port ?? null },
  };
}
