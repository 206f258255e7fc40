// activate-revision: render the unit, switch `current`, restart, wait for /readyz, record served.json.
// Every change is made under the host lock; the readiness wait is not (see lock/activation-claim.ts).
//
// Two plans around the wait: the switch, then the record. The record depends on what the wait found
// and on the claim re-read under the lock once it is taken again, facts that do not exist when the
// switch is planned; a single plan would need a step that decides what the next ones are.
import { renderLaunchEnvironment, renderUnit, UnitRenderError, type AgentLayout, type AgentMarker, type RevisionLayout, type RevisionMarker, type ServedMarker } from '@occ-ssh/markers';
import { ComputeError, DRIVER_ID, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import type { Account } from '../accounts/accounts.js';
import { verifyClaim } from '../lock/activation-claim.js';
import { parentOf, refuseDirectory } from '../fs/atomic-write.js';
import type { OpContext } from '../context/context.js';
import { readCurrent, readServed, verifyUnitFile } from '../fs/ownership.js';
import { requirePasswordFile } from '../gateway/password.js';
import { boundCompileCache } from '../gateway/compile-cache.js';
import { applyPlanned } from '../plan/render.js';
import { siblingTempPrefix, type Plan, type Step } from '../plan/steps.js';
import { ownedListener, probeReady, waitReady, type Readiness } from '../gateway/readiness.js';
import { refuseRollback } from '../revision/revision-order.js';
import { requireSetupMarker, verifyTarget } from './setup-workspace.js';
import { ownershipError, readOwnedFile, ROOT_FILE } from '../fs/safe-read.js';
import type { HostRunner } from '../run/system.js';
import { clearReloadMark, isActive, isEnabled, unitFacts } from '../systemd/systemd.js';
import { enabledOnDisk } from '../systemd/unit-links.js';

type Args = OperationArgs<'activate-revision'>;
type Result = OperationResult<'activate-revision'>;

/** Everything activation relies on, verified under the lock before its first change. */
export interface ActivateState {
  layout: AgentLayout;
  paths: RevisionLayout;
  agent: AgentMarker;
  account: Account;
  marker: RevisionMarker;
  unitText: string;
  unitChanged: boolean;
  /** The text of launch.env for this activation's placeholders, and whether the file holds other bytes. */
  launchText: string;
  launchChanged: boolean;
  current: string | null;
  served: ServedMarker | null;
  /** served.json, `current`, the unit and launch.env say this exact revision is served: a probe may confirm it. */
  servedCandidate: boolean;
  /** A retry after a lost result: this exact revision is served and ready, so nothing needs to change. */
  alreadyServing: boolean;
  enabled: boolean;
  /** systemd's unit facts: it has the unit loaded at all; it loaded an older unit file; it failed or its last start was refused. */
  loaded: boolean;
  needsReload: boolean;
  failed: boolean;
  /** The unit's InvocationID before the restart, which the readiness wait tells the restarted run from. */
  invocation: string;
}

export async function activateRevision(ctx: OpContext, args: Args): Promise<Result> {
  // The first read, before the host lock is taken (dispatch.ts READ_BEFORE_LOCK), only decides what to
  // do next: systemd is asked nothing and the gateway is not probed. A refusal here is not final: the
  // read under the lock judges again.
  const first = await readActivateRevision(ctx, args, { unitState: false, probe: false }).catch(() => null);
  // Security: whether the served revision still answers (a probe and the listener check, whose time
  // the gateway sets) and the trim (as the Agent, over a tree it controls) both run without the host
  // lock, once the request is verified; whatever was read may be stale after them.
  let serving = false;
  if (first?.servedCandidate && (await isServing(ctx.runner, first))) serving = true;
  else if (first) await boundCompileCache(ctx.runner, first.layout.compileCache, first.account, ctx.session.signal);
  await ctx.lock?.enter();
  let state = await readActivateRevision(ctx, args, { unitState: !serving, probe: false });
  // Served and ready, and under the lock again nothing it rests on has changed: nothing to do.
  if (serving && first && state.servedCandidate && sameServed(state, first)) state = { ...state, alreadyServing: true };
  else if (serving) state = await readActivateRevision(ctx, args, { unitState: true, probe: false });
  const { layout, agent, account } = state;
  const base = { port: agent.port, unit: layout.unitName, unitChanged: state.unitChanged };
  if (state.alreadyServing) return { ...base, readyMs: 0 };
  const applied = await applyPlanned(ctx, planActivateRevision(state));
  const restartedAt = applied.restartedAt ?? Date.now();
  const deadline = restartedAt + Math.min(args.readinessTimeoutMs, ctx.session.remainingMs() - 2000);
  // A planner bug, not a host condition: the switch always stakes the claim.
  const token = applied.claimToken;
  if (token === undefined) throw new Error('the activation switch staked no claim');
  const claimStillOurs = () => verifyClaim(layout, args.owner, { agent, revision: state.paths, configurationHash: state.marker.configurationHash, unitText: state.unitText, token });
  // The restart is a queued job (systemd.ts restartUnit) and the wait follows it: neither the old
  // gateway's stop nor the new one's start is waited for under the lock, so other Agents' operations
  // need not queue behind them; nor behind the reload a new unit may leave systemd asking for
  // (systemd.ts clearReloadMark).
  const markLeft = !state.loaded && applied.restartedAt !== undefined;
  const settle = () => (markLeft ? clearReloadMark(ctx.runner, layout.unitName).catch(() => undefined) : Promise.resolve());
  const watch = { unit: layout.unitName, uid: account.uid, runner: ctx.runner, restartedFrom: state.invocation };
  const wait = async () => (await Promise.all([waitReady(agent.port, deadline - Date.now(), ctx.session, watch), settle()]))[0];
  let readiness = await unlocked(ctx, wait);
  ctx.session.checkpoint();
  claimStillOurs();
  // The start rate limit refused the queued restart (back-to-back activations of one Agent): under the
  // lock again and with the claim still this activation's, reset and queue it once more.
  if (!readiness.ready && readiness.startRefused) {
    await applyPlanned(ctx, [{ op: 'restart-unit', unit: layout.unitName, failed: true }]);
    readiness = await unlocked(ctx, wait);
    ctx.session.checkpoint();
    claimStillOurs();
  }
  const readyMs = Date.now() - restartedAt;
  const record = planRecordActivation(state, readiness, new Date());
  await applyPlanned(ctx, record.steps);
  if (!readiness.ready) throw new ComputeError('not-ready', readiness.reason ?? `${layout.unitName} did not answer /readyz on 127.0.0.1:${agent.port} within ${args.readinessTimeoutMs} ms`);
  return { ...base, readyMs };
}

/**
 * The switch activation would make, read as it reads it but for the compile-cache trim, which changes
 * only the Agent's cache and nothing the switch depends on. The record after the wait is planned once
 * the wait has found what it finds, so it is named, not listed.
 */
export async function activateRevisionPlan(ctx: OpContext, args: Args): Promise<{ steps: Step[]; after: string | null }> {
  const state = await readActivateRevision(ctx, args, { unitState: true, probe: true });
  if (state.alreadyServing) return { steps: [], after: `already serving this revision and ready: nothing changes` };
  const reload = state.loaded ? '' : ', with a daemon-reload outside the lock if systemd then asks for one';
  return {
    steps: planActivateRevision(state),
    after: `then wait up to ${args.readinessTimeoutMs} ms for /readyz on 127.0.0.1:${state.agent.port}${reload}, and record served.json (planned after the wait)`,
  };
}

/**
 * With `unitState` false systemd is not asked: `enabled`, `needsReload` and `failed` then read false, `loaded` true,
 * and no switch may be planned from them. With `probe` false the gateway is not probed: `alreadyServing`
 * reads false, `servedCandidate` says whether a probe could make it true.
 */
async function readActivateRevision(ctx: OpContext, args: Args, { unitState, probe }: { unitState: boolean; probe: boolean }): Promise<ActivateState> {
  const { owner, revision } = args;
  const { layout, paths, agent, account, marker } = await verifyTarget(ctx, args, args.configurationHash);
  const managedPassword = marker.auth !== 'trusted-proxy';
  if (managedPassword && !requirePasswordFile(layout.passwordFile)) {
    throw ownershipError(layout.passwordFile, 'managed gateway password file is missing; prepare the revision again');
  }
  // Execution waits for the workspace: without the marker of exactly this setup the gateway never starts.
  if (args.workspaceSetupId !== undefined) requireSetupMarker(layout, owner, args.workspaceSetupId);
  const previousUnit = verifyUnitFile(layout, owner);
  const current = readCurrent(layout);
  refuseRollback(layout, owner, revision);
  const served = readServed(layout, owner);
  refuseDirectory(layout.activation); // the claim is written there after served.json goes
  const unitText = render(() => renderUnit(unitInput(ctx, args, layout, account, agent.port, managedPassword)));
  const unitChanged = previousUnit !== unitText;
  const launchText = render(() => renderLaunchEnvironment(args.launchEnvironment));
  const launchChanged = launchFileText(layout.launchEnvFile) !== launchText;
  const servedCandidate = !unitChanged && !launchChanged && current === paths.currentTarget && servedMatches(served, marker, agent.port);
  const alreadyServing = probe && servedCandidate && (await isServing(ctx.runner, { layout, agent, account }));
  const ask = unitState && !alreadyServing;
  const enabled = ask && enabledOnDisk(layout.unitName, layout.unitFile, ctx.runtime.systemdUnitDirectory);
  const facts = ask ? await unitFacts(ctx.runner, layout.unitName) : { loaded: true, needsReload: false, failed: false, invocation: '' };
  return { layout, paths, agent, account, marker, unitText, unitChanged, launchText, launchChanged, current, served, servedCandidate, alreadyServing, enabled, ...facts };
}

/** The switch: served.json goes before anything else changes, the claim is staked before the unit is written. */
export function planActivateRevision(state: ActivateState): Step[] {
  const { layout, paths, unitChanged } = state;
  if (state.alreadyServing) return [];
  const steps: Step[] = [
    { op: 'remove-file', path: layout.served },
    { op: 'stake-claim', path: layout.activation },
  ];
  // Security: the placeholders go to a root 0600 file, before the unit that loads it, never into the unit.
  if (state.launchChanged) steps.push({ op: 'write-file', path: layout.launchEnvFile, content: state.launchText, owner: { uid: 0, gid: 0, mode: 0o600 } });
  if (unitChanged) {
    steps.push(
      { op: 'sweep-temps', dir: parentOf(layout.unitFile), prefix: siblingTempPrefix(layout.unitFile) },
      { op: 'write-file', path: layout.unitFile, content: state.unitText, owner: { uid: 0, gid: 0, mode: 0o644 } },
    );
  }
  if (state.current !== paths.currentTarget) steps.push({ op: 'replace-symlink', path: layout.current, target: paths.currentTarget });
  if (!state.enabled) steps.push({ op: 'enable-unit', path: layout.unitFile });
  // One reload at most, and none when a new revision keeps the same unit or systemd has not loaded the
  // unit yet (a new Agent's: the restart reads its file), since its cost grows with the host's unit
  // count. systemd's NeedDaemonReload catches a unit written by an attempt that was cut before its reload.
  if (state.loaded && (unitChanged || !state.enabled || state.needsReload)) steps.push({ op: 'daemon-reload' });
  steps.push({ op: 'checkpoint' }, { op: 'restart-unit', unit: layout.unitName, failed: state.failed });
  return steps;
}

/** After the wait, under the lock again and with the claim still this activation's: served.json when ready, and the claim spent either way. */
export function planRecordActivation({ layout, marker, agent }: ActivateState, readiness: Readiness, now: Date): Plan<{ ready: boolean }> {
  const drop: Step = { op: 'drop-claim', path: layout.activation };
  if (!readiness.ready) return { steps: [drop], result: { ready: false } };
  return { steps: [{ op: 'write-marker', path: layout.served, marker: servedMarker(marker, agent.port, now) }, drop], result: { ready: true } };
}

function unitInput(ctx: OpContext, args: Args, layout: AgentLayout, account: Account, port: number, managedPassword: boolean) {
  const { root, nodePath, openclawPath, gatewayLimits: limits, allowLinkLocal } = ctx.runtime;
  return { namespaceId: args.owner.namespace.id, agentId: args.owner.agent.id, account: account.name, nodePath, openclawPath, port, root, layout, managedPassword, limits, allowLinkLocal };
}

function render(renderer: () => string): string {
  try {
    return renderer();
  } catch (error) {
    if (error instanceof UnitRenderError) throw new ComputeError('configuration', error.message);
    throw error;
  }
}

/** What launch.env holds when it is root's 0600 regular file; anything else there is replaced. */
function launchFileText(path: string): string | null {
  try {
    return readOwnedFile(path, ROOT_FILE)?.toString('utf8') ?? null;
  } catch (error) {
    if (error instanceof ComputeError) return null;
    throw error;
  }
}

function servedMatches(served: ServedMarker | null, marker: RevisionMarker, port: number): boolean {
  return served !== null && served.revisionId === marker.revisionId && served.configurationHash === marker.configurationHash && served.port === port;
}

/** The same served.json, `current`, unit and launch.env as an earlier read: what its probe confirmed still holds. */
function sameServed(now: ActivateState, before: ActivateState): boolean {
  return JSON.stringify(now.served) === JSON.stringify(before.served) && now.unitText === before.unitText && now.launchText === before.launchText && now.current === before.current;
}

/** Runs `work` without the host lock (when the operation holds it) and takes the lock again after. */
function unlocked<T>(ctx: OpContext, work: () => Promise<T>): Promise<T> {
  return ctx.lock ? ctx.lock.outside(work) : work();
}

async function isServing(runner: HostRunner, { layout, agent, account }: Pick<ActivateState, 'layout' | 'agent' | 'account'>): Promise<boolean> {
  const port = agent.port;
  return (
    (await isActive(runner, layout.unitName)) &&
    (await isEnabled(runner, layout.unitName)) &&
    (await probeReady(port)) &&
    (await ownedListener(port, { unit: layout.unitName, uid: account.uid, runner }))
  );
}

function servedMarker(marker: RevisionMarker, port: number, now: Date) {
  return {
    kind: 'served' as const,
    version: 1 as const,
    driver: DRIVER_ID,
    namespaceId: marker.namespaceId,
    agentId: marker.agentId,
    revisionId: marker.revisionId,
    revisionNumber: marker.revisionNumber,
    configurationHash: marker.configurationHash,
    port,
    servedAt: now.toISOString(),
  };
}
