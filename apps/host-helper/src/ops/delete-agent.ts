// delete-agent: verify one Agent's markers, account and unit, then stop and remove its unit, rename its
// directory into the removal area and remove the account, all under the host lock; the tree itself is
// removed after the lock is released (lock/removal-area.ts).
import { deletingAgentPath, revisionEntries, type AccountMarker, type AgentLayout, type AgentMarker } from '@occ-ssh/markers';
import type { AgentOwner, OperationArgs, OperationResult } from '@occ-ssh/protocol';
import { readRemovableAccount, verifyAccount } from '../accounts/accounts.js';
import { TEMP_MARK } from '../fs/atomic-write.js';
import { agentPaths, namespacePaths, type OpContext } from '../context/context.js';
import { hostTree } from '../fs/marker-io.js';
import { readAgent, readCurrent, readServed, verifyNamespace, verifySnapshot, verifyStoredRevision, verifyUnitFile } from '../fs/ownership.js';
import { indexedPorts, withAgent, type PortRecord } from '../gateway/port-index.js';
import { applyPlanned } from '../plan/render.js';
import { siblingTempPrefix, type Plan, type Step } from '../plan/steps.js';
import { listDir, lstatOrNull, ownershipError } from '../fs/safe-read.js';

type Args = OperationArgs<'delete-agent'>;
type Result = OperationResult<'delete-agent'>;

/** What deletion found, every part of it verified as this Agent's. */
export interface DeleteAgentState {
  /** Whose removals this deletion records and finishes. */
  owner: { namespaceId: string; agentId: string };
  layout: AgentLayout;
  agentsDir: string;
  /** Where an earlier version renamed the directory before removing it. */
  deleting: string;
  /** The live directory is there (with this Agent's marker, or empty but for temps). */
  dirExists: boolean;
  /** A directory an earlier, cut deletion renamed away. */
  twinExists: boolean;
  agent: AgentMarker | null;
  unitFileExists: boolean;
  account: { path: string; marker: AccountMarker; userExists: boolean } | null;
  /** Every Agent's port from the port index, when it describes the tree; null otherwise. */
  ports: PortRecord | null;
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
  return {
    owner: { namespaceId: owner.namespace.id, agentId: owner.agent.id },
    layout,
    agentsDir: ns.agents,
    deleting,
    dirExists,
    twinExists: lstatOrNull(deleting) !== null,
    agent,
    unitFileExists,
    account,
    ports: indexedPorts(ctx.runtime.root),
  };
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

export function planDeleteAgent({ owner, layout, agentsDir, deleting, dirExists, twinExists, agent, unitFileExists, account, ports }: DeleteAgentState): Plan<Result> {
  // Workspace setup runs without the host lock: its unit is stopped before anything it could be using goes.
  const steps: Step[] = dirExists ? [{ op: 'stop-native-setup', unit: layout.setupUnitName }] : [];
  // The same unit steps Namespace deletion and retirement use; the unit goes before the directory it runs from.
  if (dirExists || unitFileExists) steps.push({ op: 'stop-and-disable', unit: layout.unitName }, { op: 'remove-file', path: layout.unitFile }, { op: 'daemon-reload' });
  // Security: with its processes gone, the tree is renamed where nothing of the Agent's reaches it: the
  // port is free from here on, and the removal need not run under the lock. A directory an earlier
  // version left renamed away beside it goes the same way.
  if (twinExists) steps.push({ op: 'stage-removal', path: deleting, ...owner });
  if (dirExists) steps.push({ op: 'stage-removal', path: layout.dir, ...owner });
  if (dirExists || twinExists) steps.push({ op: 'sweep-temps', dir: agentsDir, prefix: siblingTempPrefix(layout.dir) });
  if ((dirExists || twinExists) && ports) steps.push({ op: 'record-ports', ports: withAgent(ports, layout.dir, null) });
  // The account after its unit and tree: user, group, then its marker, so a retry finds what is left.
  if (account) steps.push({ op: 'remove-account', marker: account.path, account: account.marker });
  // Last: this Agent's removals (this one's, and any a cut deletion left), after the lock is released.
  steps.push({ op: 'finish-removals', ...owner });
  return {
    steps,
    result: { agentExisted: dirExists || twinExists, accountRemoved: account !== null, unitRemoved: unitFileExists, portFreed: agent?.port ?? null },
  };
}
