// setup-workspace: OCC's first workspace documents delivered into the Agent's workspace through native
// `openclaw setup`, or the completion marker verified. Runs after prepare-revision staged the revision:
// verified and planned under the host lock, the work as the Agent done without it, the marker written
// under it again; the gateway unit is never touched, so setup never starts the gateway.
//
// The marker is the commit point: written last, atomically, by root in the Agent directory the Agent
// cannot write. With it in place a retry changes nothing; once OCC records the setup complete, a
// missing or different marker is refused and the documents (the user's from then on) are never read.
import { canonicalJson, managedWorkspaceDir, sha256Hex, workspaceSetupMarker, workspaceSetupMarkerPath, type WorkspaceSetupMarker } from '@occ-ssh/markers';
import { ComputeError, type AgentOwner, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { verifyAccount } from '../accounts/accounts.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context/context.js';
import { expectOwner, readMarker } from '../fs/marker-io.js';
import { agentOwnerFields, readRevision, requireAgent, verifyNamespace, verifySnapshot } from '../fs/ownership.js';
import { apply } from '../plan/apply.js';
import { planDigest, renderSteps } from '../plan/render.js';
import { siblingTempPrefix, type Plan, type Step } from '../plan/steps.js';
import { ownershipError, ROOT_FILE } from '../fs/safe-read.js';
import type { AgentLayout } from '@occ-ssh/markers';
import { inspectWorkspace, refuseConflicts, replaceableDigests, type WorkspaceTarget } from '../workspace/documents.js';
import { NATIVE_SETUP_TIMEOUT_MS, nativeSetupArgv, readOpenClawBuild, type NativeSetupRun, type OpenClawBuild } from '../workspace/native-setup.js';

/** What setup-workspace found, verified under the lock before its first change. */
export interface SetupState {
  markerPath: string;
  /** The marker already records exactly this setup: nothing to do. */
  recorded: boolean;
  build: OpenClawBuild;
  target: WorkspaceTarget;
  run: NativeSetupRun;
  /** The account's name, re-verified before the marker. */
  account: string;
}

type Args = OperationArgs<'setup-workspace'>;
type Result = OperationResult<'setup-workspace'>;

export async function setupWorkspace(ctx: OpContext, args: Args): Promise<Result> {
  // Security: the inspection runs as the Agent over its own workspace, so it waits until the lock is released.
  const state = await readSetupWorkspace(ctx, args, false);
  const plan = planSetupWorkspace(state, args);
  // One digest for both parts, as plan-operation shows them: the plan this setup applies, even if cut short.
  ctx.session.plans.push(planDigest(renderSteps([...plan.unlocked, ...plan.steps])));
  if (plan.unlocked.length > 0) {
    // Native setup takes seconds (up to its bound) and runs as the Agent in its own unit: siblings'
    // operations need not queue behind it. What was verified may be stale once the lock is back.
    const work = () =>
      refuseWorkspaceConflicts(ctx, state, args)
        .then(() => apply(ctx, plan.unlocked))
        .then(
          () => null,
          (error: unknown) => error,
        );
    const failure = await (ctx.lock ? ctx.lock.outside(work) : work());
    if (ctx.session.signal.aborted && failure) throw failure;
    await verifyUnchanged(ctx, args, state);
    if (failure) throw failure;
  }
  await apply(ctx, plan.steps);
  return plan.result;
}

/** What setupWorkspace reads and plans, for plan-operation: the unlocked steps, then the locked ones. */
export async function setupWorkspacePlan(ctx: OpContext, args: Args): Promise<Plan<Result>> {
  const plan = planSetupWorkspace(await readSetupWorkspace(ctx, args, true), args);
  return { steps: [...plan.unlocked, ...plan.steps], result: plan.result };
}

/**
 * The Namespace, the Agent, its account and the staged snapshot, each verified as this Agent's (activation
 * reads the same, and names the configuration hash OCC committed, checked before the snapshot).
 */
export async function verifyTarget(ctx: OpContext, { owner, revision }: Pick<Args, 'owner' | 'revision'>, committedHash?: string) {
  verifyNamespace(namespacePaths(ctx, owner.namespace.id).marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const agent = requireAgent(layout, owner);
  const account = await verifyAccount(ctx, owner);
  if (agent.uid !== account.uid || agent.gid !== account.gid) throw ownershipError(layout.marker, 'Agent marker records a different account');
  const paths = revisionPaths(layout, revision);
  const staged = readRevision(paths, owner, revision);
  if (!staged) throw ownershipError(paths.marker, 'revision is not staged on this host; prepare it first');
  if (committedHash !== undefined && staged.configurationHash !== committedHash) throw ownershipError(paths.marker, 'staged configuration hash differs from the committed revision');
  const configuration = verifySnapshot(paths, staged, account.gid).toString('utf8');
  return { layout, paths, agent, account, marker: staged, configuration };
}

/** With `inspect` the workspace is inspected here (plan-operation, no lock); setupWorkspace does it after releasing the lock. */
async function readSetupWorkspace(ctx: OpContext, args: Args, inspect: boolean): Promise<SetupState> {
  const { owner } = args;
  const { layout, agent, account, configuration } = await verifyTarget(ctx, args);
  const markerPath = workspaceSetupMarkerPath(layout.dir);
  const recorded = checkMarker(markerPath, readSetupMarker(markerPath, owner), args);
  const build = readOpenClawBuild(ctx.runtime.openclawPath);
  const target = { nodePath: ctx.runtime.nodePath, account: { uid: account.uid, gid: account.gid }, dir: managedWorkspaceDir(layout.state) };
  const { nodePath, openclawPath, root, gatewayLimits: limits, allowLinkLocal } = ctx.runtime;
  const run = { nodePath, openclawPath, layout, account: target.account, configuration, port: agent.port, root, limits, allowLinkLocal };
  // The unit's sandbox is rendered now, so a configuration it refuses fails before the first change.
  nativeSetupArgv(run, NATIVE_SETUP_TIMEOUT_MS);
  const state = { markerPath, recorded, build, target, run, account: account.name };
  if (inspect) await refuseWorkspaceConflicts(ctx, state, args);
  return state;
}

/** Refused before the first change: a conflict found now is one the steps would meet again. */
async function refuseWorkspaceConflicts(ctx: OpContext, { recorded, target, build }: SetupState, { setup }: Args): Promise<void> {
  if (recorded) return;
  const names = setup.documents.map((document) => document.name);
  refuseConflicts(target.dir, await inspectWorkspace(ctx.runner, target, names, ctx.session.signal), replaceableDigests(setup.documents, build.stock));
}

/**
 * Under the lock again, before the marker: the Agent, its account and the snapshot must be the ones
 * setup ran for. A deletion or a new preparation in between wins: this setup ends with a retryable
 * conflict and records nothing.
 */
async function verifyUnchanged(ctx: OpContext, args: Args, before: SetupState): Promise<void> {
  let now: Awaited<ReturnType<typeof verifyTarget>>;
  try {
    now = await verifyTarget(ctx, args);
  } catch (error) {
    throw changed(error instanceof ComputeError ? (error.details.path ?? before.run.layout.dir) : before.run.layout.dir);
  }
  const { agent, account, configuration } = now;
  if (account.name !== before.account || agent.uid !== before.run.account.uid || agent.gid !== before.run.account.gid || agent.port !== before.run.port) throw changed(now.layout.marker);
  if (configuration !== before.run.configuration) throw changed(`${now.layout.revisions} (the staged snapshot)`);
  // Another run of the same setup may have recorded it meanwhile; a different one is refused here.
  checkMarker(before.markerPath, readSetupMarker(before.markerPath, args.owner), args);
}

function changed(path: string): ComputeError {
  return new ComputeError('conflict', `${path} changed while workspace setup ran without the host lock; a later operation on the Agent took over`, { path });
}

/** The marker, checked to belong to exactly this Agent; null when absent. */
function readSetupMarker(path: string, owner: AgentOwner): WorkspaceSetupMarker | null {
  const marker = readMarker(path, workspaceSetupMarker);
  if (marker) expectOwner(path, marker, agentOwnerFields(owner));
  return marker;
}

/** True when the marker records exactly this setup; throws when it records another, or is missing after completion. */
function checkMarker(path: string, marker: WorkspaceSetupMarker | null, { setup }: Args): boolean {
  if (marker === null) {
    if (setup.completed) throw ownershipError(path, 'OCC recorded this workspace setup complete, but its marker is missing; restore it (a completed setup is never replayed)');
    return false;
  }
  if (marker.setupId !== setup.id) throw ownershipError(path, 'the workspace records another setup; a completed setup is never replayed');
  if ((marker.defaultsId ?? null) !== (setup.defaultsId ?? null)) throw ownershipError(path, 'the workspace marker records other defaults than this setup');
  // After completion OCC sends no documents; any it sends must be the ones recorded.
  const digests = documentDigests(setup.documents);
  if (setup.documents.length > 0 && canonicalJson(digests) !== canonicalJson(marker.documents)) throw ownershipError(path, 'the workspace marker records other documents than this setup');
  return true;
}

function documentDigests(documents: Args['setup']['documents']): Record<string, string> {
  return Object.fromEntries(documents.map((document) => [document.name, sha256Hex(document.content)]));
}

/**
 * Native setup, the documents, native setup again so its bootstrap sees them, and the check: all as
 * the Agent, run without the host lock (`unlocked`). Then, under the lock again, the marker (`steps`).
 */
export function planSetupWorkspace(state: SetupState, args: Args): Plan<Result> & { unlocked: Step[] } {
  const result = { workspace: state.recorded ? ('verified' as const) : ('applied' as const), openclawVersion: state.build.version };
  if (state.recorded) return { unlocked: [], steps: [], result };
  const { documents } = args.setup;
  const digests = documentDigests(documents);
  const marker: WorkspaceSetupMarker = {
    kind: 'workspace-setup',
    version: 1,
    ...agentOwnerFields(args.owner),
    setupId: args.setup.id,
    ...(args.setup.defaultsId ? { defaultsId: args.setup.defaultsId } : {}),
    documents: digests,
    openclawVersion: state.build.version,
  };
  const unlocked: Step[] = [{ op: 'native-setup', run: state.run }];
  if (documents.length > 0) {
    unlocked.push(
      { op: 'write-workspace', target: state.target, documents, replaceable: replaceableDigests(documents, state.build.stock) },
      { op: 'native-setup', run: state.run },
      { op: 'verify-workspace', target: state.target, digests },
    );
  }
  // A marker write cut short leaves its temp beside it: cleared before the marker is written.
  const steps: Step[] = [
    { op: 'sweep-temps', dir: state.run.layout.dir, prefix: siblingTempPrefix(state.markerPath) },
    { op: 'write-file', path: state.markerPath, content: `${canonicalJson(marker)}\n`, owner: ROOT_FILE },
  ];
  return { unlocked, steps, result };
}

/** Activation's check: the gateway starts only when the marker records exactly this setup. */
export function requireSetupMarker(layout: AgentLayout, owner: AgentOwner, setupId: string): void {
  const path = workspaceSetupMarkerPath(layout.dir);
  const marker = readSetupMarker(path, owner);
  if (marker === null) throw ownershipError(path, 'the workspace setup is not complete on this host; prepare the revision again');
  if (marker.setupId !== setupId) throw ownershipError(path, 'the workspace records another setup than this deployment');
}
