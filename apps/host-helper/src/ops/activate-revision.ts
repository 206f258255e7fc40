// activate-revision: render the unit, switch `current`, restart, wait for /readyz, record served.json.
// Every change is made under the host lock; the readiness wait is not (see activation-claim.ts).
import { renderUnit, UnitRenderError, type RevisionMarker } from '@occ-ssh/markers';
import { ComputeError, DRIVER_ID, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { verifyAccount } from '../accounts.js';
import { dropClaim, stakeToken, verifyClaim } from '../activation-claim.js';
import { parentOf, removeFile, replaceSymlink, sweepTemps, writeFileAtomic } from '../atomic-write.js';
import { boundCompileCache } from '../compile-cache.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context.js';
import { writeMarker } from '../marker-io.js';
import { readCurrent, readRevision, readServed, requireAgent, verifyNamespace, verifySnapshot, verifyUnitFile } from '../ownership.js';
import { requirePasswordFile } from '../password.js';
import { ownedListener, probeReady, waitReady } from '../readiness.js';
import { refuseRollback } from '../revision-order.js';
import { ownershipError } from '../safe-read.js';
import { daemonReload, enableUnit, isActive, isEnabled, restartUnit, unitFacts } from '../systemd.js';

type Args = OperationArgs<'activate-revision'>;

export async function activateRevision(ctx: OpContext, args: Args): Promise<OperationResult<'activate-revision'>> {
  const { owner, revision } = args;
  verifyNamespace(namespacePaths(ctx, owner.namespace.id).marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const agent = requireAgent(layout, owner);
  const account = await verifyAccount(ctx, owner);
  if (agent.uid !== account.uid || agent.gid !== account.gid) throw ownershipError(layout.marker, 'Agent marker records a different account');
  const paths = revisionPaths(layout, revision);
  const marker = readRevision(paths, owner, revision);
  if (!marker) throw ownershipError(paths.marker, 'revision is not staged on this host; prepare it first');
  if (marker.configurationHash !== args.configurationHash) throw ownershipError(paths.marker, 'staged configuration hash differs from the committed revision');
  verifySnapshot(paths, marker, account.gid);
  const managedPassword = marker.auth !== 'trusted-proxy';
  if (managedPassword && !requirePasswordFile(layout.passwordFile)) {
    throw ownershipError(layout.passwordFile, 'managed gateway password file is missing; prepare the revision again');
  }
  const previousUnit = verifyUnitFile(layout, owner);
  const current = readCurrent(layout);
  refuseRollback(layout, owner, revision);
  readServed(layout, owner);

  let unitText: string;
  try {
    unitText = renderUnit({
      namespaceId: owner.namespace.id,
      agentId: owner.agent.id,
      account: account.name,
      nodePath: ctx.runtime.nodePath,
      openclawPath: ctx.runtime.openclawPath,
      port: agent.port,
      layout,
      managedPassword,
      launchEnvironment: args.launchEnvironment,
    });
  } catch (error) {
    if (error instanceof UnitRenderError) throw new ComputeError('configuration', error.message);
    throw error;
  }
  const unitChanged = previousUnit !== unitText;
  const base = { port: agent.port, unit: layout.unitName, unitChanged };

  // A retry after a lost result: the exact revision already served and ready needs no restart.
  if (!unitChanged && current === paths.currentTarget && (await alreadyServing(layout, owner, marker, agent.port, account.uid))) {
    return { ...base, readyMs: 0 };
  }

  removeFile(layout.served);
  const claim = { agent, revision: paths, configurationHash: marker.configurationHash, unitText, token: stakeToken(layout.activation) };
  if (unitChanged) {
    sweepTemps(parentOf(layout.unitFile), `.${layout.unitName}`);
    writeFileAtomic(layout.unitFile, unitText, { uid: 0, gid: 0, mode: 0o644 });
  }
  if (current !== paths.currentTarget) replaceSymlink(layout.current, paths.currentTarget);
  const enabling = !(await isEnabled(layout.unitName));
  if (enabling) await enableUnit(layout.unitName);
  // One reload at most, and none when a new revision keeps the same unit (its cost grows with the
  // host's unit count). systemd's NeedDaemonReload catches a unit written by an attempt that was
  // cut before its reload.
  const facts = await unitFacts(layout.unitName);
  if (unitChanged || enabling || facts.needsReload) await daemonReload();
  ctx.session.checkpoint();
  await boundCompileCache(layout.compileCache, account);
  const restartedAt = Date.now();
  await restartUnit(layout.unitName, facts.failed);
  const timeoutMs = Math.min(args.readinessTimeoutMs, ctx.session.remainingMs() - 2000);
  // The wait changes nothing, so other Agents' operations need not queue behind it.
  const wait = () => waitReady(agent.port, timeoutMs, ctx.session, { unit: layout.unitName, uid: account.uid });
  const readiness = ctx.lock ? await ctx.lock.outside(wait) : await wait();
  const readyMs = Date.now() - restartedAt;
  ctx.session.checkpoint();
  verifyClaim(layout, owner, claim);
  if (!readiness.ready) {
    dropClaim(layout);
    throw new ComputeError('not-ready', readiness.reason ?? `${layout.unitName} did not answer /readyz on 127.0.0.1:${agent.port} within ${timeoutMs} ms`);
  }
  writeMarker(layout.served, servedMarker(marker, agent.port));
  dropClaim(layout);
  return { ...base, readyMs };
}

async function alreadyServing(layout: ReturnType<typeof agentPaths>, owner: Args['owner'], marker: RevisionMarker, port: number, uid: number): Promise<boolean> {
  const served = readServed(layout, owner);
  if (!served || served.revisionId !== marker.revisionId || served.configurationHash !== marker.configurationHash || served.port !== port) return false;
  return (await isActive(layout.unitName)) && (await isEnabled(layout.unitName)) && (await probeReady(port)) && (await ownedListener(port, { unit: layout.unitName, uid }));
}

function servedMarker(marker: RevisionMarker, port: number) {
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
    servedAt: new Date().toISOString(),
  };
}
