// prepare-revision: the Agent's account, port, directories and immutable snapshot.
// Leaves the unit, `current` and the running gateway untouched, so a failed OCC commit cuts nothing over.
// Everything it relies on is read and verified before its first change.
import { sha256Hex, type AgentLayout, type AgentMarker, type RevisionLayout } from '@occ-ssh/markers';
import { ComputeError, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { creatingMarker, readAccount, verifyAccount, type Account, type AccountState } from '../accounts/accounts.js';
import { refuseDirectory, TEMP_MARK } from '../fs/atomic-write.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context/context.js';
import { agentOwnerFields, readAgent, readRevision, readRevisionDir, verifyNamespace, verifySnapshot, verifyUnitFile } from '../fs/ownership.js';
import { requirePasswordFile } from '../gateway/password.js';
import { resolveAccount } from '../plan/apply.js';
import { applyPlanned } from '../plan/render.js';
import { siblingTempPrefix, type Id, type Plan, type Step } from '../plan/steps.js';
import { refuseFullDisk } from '../gateway/capacity.js';
import { refuseWithoutAccountIds } from '../accounts/account-ids.js';
import { allocatePort } from '../gateway/ports.js';
import type { PortRecord } from '../gateway/port-index.js';
import { isSuperseded } from '../revision/revision-order.js';
import { ROOT_PRIVATE_DIR, listDir, lstatOrNull, ownershipError, verifyDir } from '../fs/safe-read.js';

/** What prepare-revision found on the host, all of it verified. */
export interface PrepareState {
  agentsDir: string;
  layout: AgentLayout;
  paths: RevisionLayout;
  /** The Agent's marker; null for an Agent new to this host. */
  agent: AgentMarker | null;
  account: AccountState;
  port: number;
  /** For an Agent new to this host: every Agent's port with its own, for the port index. */
  ports: PortRecord | null;
  /** This exact revision is staged intact. */
  staged: boolean;
  superseded: boolean;
  passwordFile: boolean;
}

/** The account in a plan: its UID/GID are known, or named for the step that creates them. */
export type PlannedAccount = { name: string; uid: Id; gid: Id };

type Args = OperationArgs<'prepare-revision'>;
type Result = OperationResult<'prepare-revision'>;

export async function prepareRevision(ctx: OpContext, args: Args): Promise<Result> {
  const plan = await prepareRevisionPlan(ctx, args);
  const applied = await applyPlanned(ctx, plan.steps);
  return { ...plan.result, account: resolveAccount(applied, plan.result.account) };
}

/** What prepareRevision reads and plans, for it and for plan-operation alike. */
export async function prepareRevisionPlan(ctx: OpContext, args: Args) {
  return planPrepareRevision(await readPrepareRevision(ctx, args), args);
}

async function readPrepareRevision(ctx: OpContext, args: Args): Promise<PrepareState> {
  const { owner, revision, configuration } = args;
  if (sha256Hex(configuration.document) !== configuration.hash) {
    throw new ComputeError('configuration', 'configuration document does not match its hash');
  }
  const ns = namespacePaths(ctx, owner.namespace.id);
  verifyNamespace(ns.marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const agent = readAgent(layout, owner);
  if (!agent) refuseForeignLeftovers(layout.dir);
  verifyUnitFile(layout, owner);
  const { account, port, ports } = agent ? await knownAgent(ctx, args, layout, agent) : await newAgent(ctx, args, layout);
  const gid = account.state === 'active' ? account.account.gid : null;
  if (account.state === 'active') verifyAgentDirs(layout, account.account);
  const paths = revisionPaths(layout, revision);
  const staged = verifyStaged(args, layout, paths, gid);
  const superseded = isSuperseded(layout, owner, revision);
  if (!staged && !superseded) {
    // What staging will write into must take it, so a refusal comes before the first change.
    verifyDir(paths.dir, ROOT_PRIVATE_DIR);
    refuseDirectory(paths.config);
  }
  return {
    agentsDir: ns.agents,
    layout,
    paths,
    agent,
    account,
    port,
    ports,
    staged,
    superseded,
    passwordFile: requirePasswordFile(layout.passwordFile), // one that exists must be root's 0600
  };
}

export function planPrepareRevision(state: PrepareState, args: Args): Plan<Omit<Result, 'account'> & { account: PlannedAccount }> {
  const { layout, paths, account, port } = state;
  const planned = plannedAccount(account);
  const steps: Step[] = state.agent ? [] : newAgentSteps(state, args, planned);
  const base = { port, account: planned };
  if (state.superseded) return { steps, result: { ...base, ready: false, reason: 'superseded', snapshot: 'skipped' } };
  const agentDirOwner = { uid: planned.uid, gid: planned.gid, mode: 0o700 };
  steps.push(
    { op: 'sweep-temps', dir: layout.dir },
    { op: 'ensure-dir', path: layout.home, owner: agentDirOwner, repairMode: true },
    { op: 'ensure-dir', path: layout.state, owner: agentDirOwner, repairMode: true },
    { op: 'ensure-dir', path: layout.revisions, owner: ROOT_PRIVATE_DIR },
  );
  if (args.configuration.auth !== 'trusted-proxy' && !state.passwordFile) steps.push({ op: 'create-password-file', path: layout.passwordFile });
  if (state.staged) return { steps, result: { ...base, ready: true, snapshot: 'verified' } };
  // The snapshot, then its marker last: the marker is the commit point of a snapshot.
  steps.push(
    { op: 'ensure-dir', path: paths.dir, owner: ROOT_PRIVATE_DIR },
    { op: 'sweep-temps', dir: paths.dir },
    { op: 'write-file', path: paths.config, content: args.configuration.document, owner: { uid: 0, gid: planned.gid, mode: 0o640 } },
    {
      op: 'write-marker',
      path: paths.marker,
      marker: {
        kind: 'revision',
        version: 1,
        ...agentOwnerFields(args.owner),
        revisionId: args.revision.id,
        revisionNumber: args.revision.number,
        configurationHash: args.configuration.hash,
        harness: args.harness,
        auth: args.configuration.auth,
      },
    },
  );
  return { steps, result: { ...base, ready: true, snapshot: 'created' } };
}

/** A new Agent: the account (if not made yet), then its directory created complete with its marker. */
function newAgentSteps({ agentsDir, layout, account, port, ports }: PrepareState, args: Args, planned: PlannedAccount): Step[] {
  const steps: Step[] = [];
  if (account.state === 'missing') {
    const creating = account.creating ?? creatingMarker(args.owner, planned.name);
    if (!account.creating) steps.push({ op: 'write-marker', path: account.markerPath, marker: creating });
    const { name, markerPath: marker, userExists, groupExists, startOver, shell, idRange } = account;
    steps.push({ op: 'create-account', name, home: layout.home, marker, creating, userExists, groupExists, startOver, shell, ...(idRange ? { idRange } : {}) });
  }
  const marker = { kind: 'agent', version: 1, ...agentOwnerFields(args.owner), account: planned.name, uid: planned.uid, gid: planned.gid, port } as const;
  steps.push(
    { op: 'sweep-temps', dir: agentsDir, prefix: siblingTempPrefix(layout.dir) },
    { op: 'sweep-temps', dir: layout.dir },
    { op: 'create-dir-atomic', path: layout.dir, owner: ROOT_PRIVATE_DIR, inside: [{ op: 'write-marker', path: layout.marker, marker }] },
  );
  if (ports) steps.push({ op: 'record-ports', ports });
  return steps;
}

function plannedAccount(state: AccountState): PlannedAccount {
  if (state.state === 'active') return state.account;
  return { name: state.name, uid: { uidOf: state.name }, gid: { gidOf: state.name } };
}

/** Security: an Agent with a marker must still have exactly the account it recorded; none is created for it. */
async function knownAgent(ctx: OpContext, args: Args, layout: AgentLayout, agent: AgentMarker): Promise<{ account: AccountState; port: number; ports: null }> {
  verifyDir(layout.dir, ROOT_PRIVATE_DIR);
  const account = await verifyAccount(ctx, args.owner);
  if (agent.uid !== account.uid || agent.gid !== account.gid || agent.account !== account.name) {
    throw ownershipError(layout.marker, 'Agent marker records a different account than the live one');
  }
  return { account: { state: 'active', account }, port: agent.port, ports: null };
}

/** A new Agent: its port is chosen among those every Agent marker on the host records, and its account read. */
async function newAgent(ctx: OpContext, args: Args, layout: AgentLayout): Promise<{ account: AccountState; port: number; ports: PortRecord }> {
  const { port, ports } = allocatePort(ctx, layout.dir);
  refuseFullDisk(ctx);
  const account = await readAccount(ctx, args.owner);
  // A half-made account of our own already holds its IDs; only a new user (and group) needs free ones.
  if (account.state === 'missing' && !account.userExists) refuseWithoutAccountIds(ctx.runtime, { gid: !account.groupExists });
  return { account, port, ports };
}

/** An Agent directory without its marker is only accepted empty but for temp files (an interrupted prepare of an older helper). */
function refuseForeignLeftovers(dir: string): void {
  const stat = lstatOrNull(dir);
  if (stat && !stat.isDirectory()) throw ownershipError(dir, 'expected a directory; refusing to follow or replace it');
  const leftovers = listDir(dir).filter((name) => !(name.startsWith('.') && name.includes(TEMP_MARK)));
  if (leftovers.length > 0) throw ownershipError(dir, 'Agent directory exists without its Agent marker; refusing to adopt it');
}

/**
 * The directories prepare would otherwise only find wrong at its change: home and state must be
 * the account's (their mode is repaired, the Agent may chmod its own), revisions root's.
 */
function verifyAgentDirs(layout: AgentLayout, account: Account): void {
  for (const path of [layout.home, layout.state]) {
    const stat = lstatOrNull(path);
    if (stat === null) continue;
    verifyDir(path, { uid: account.uid, gid: account.gid, mode: stat.mode & 0o7777 });
  }
  verifyDir(layout.revisions, ROOT_PRIVATE_DIR);
}

/**
 * Checks every staged snapshot of the Agent: each must be its own, and the same number under a
 * different revision ID is an ownership conflict. True when this exact revision is staged intact.
 */
function verifyStaged(args: Args, layout: AgentLayout, paths: RevisionLayout, gid: number | null): boolean {
  for (const name of listDir(layout.revisions)) {
    if (name.startsWith('.')) continue;
    const { paths: stored, marker } = readRevisionDir(layout, name, args.owner);
    if (marker && marker.revisionNumber === args.revision.number && marker.revisionId !== args.revision.id) {
      throw ownershipError(stored.marker, `revision number ${args.revision.number} is already staged under a different revision ID`);
    }
  }
  const existing = readRevision(paths, args.owner, args.revision);
  if (!existing) return false;
  if (existing.configurationHash !== args.configuration.hash || existing.auth !== args.configuration.auth) {
    throw ownershipError(paths.marker, 'revision is already staged with a different configuration');
  }
  // A snapshot without a recorded account cannot be the driver's: the account is made before any Agent directory.
  if (gid === null) throw ownershipError(paths.marker, 'revision is staged for an Agent whose account does not exist');
  verifySnapshot(paths, existing, gid);
  return true;
}
