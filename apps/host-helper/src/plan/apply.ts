// Runs a plan's steps in order with the existing primitives. Each primitive makes the per-change
// check (run/change-guard.ts) before its change, so a closed session or a passed deadline stops the
// plan between two steps exactly as before, and the audit line's count stays each change's own.
// Every external command goes through the context's runner (run/system.ts), built by run/commands.ts.
import { renameSync } from 'node:fs';
import { createAccount, removeAccount, type Account } from '../accounts/accounts.js';
import { createDirAtomic, ensureDir, parentOf, removeFile, removeTree, replaceSymlink, sweepTemps, syncDir, writeFileAtomic } from '../fs/atomic-write.js';
import { beforeChange } from '../run/change-guard.js';
import type { OpContext } from '../context/context.js';
import { assertNever } from '@occ-ssh/protocol';
import { writeMarker } from '../fs/marker-io.js';
import { ensurePasswordFile } from '../gateway/password.js';
import { recordPorts } from '../gateway/port-index.js';
import type { Ownership } from '../fs/safe-read.js';
import { stakeToken } from '../lock/activation-claim.js';
import { claimRemovals, finishRemovals, stageRemoval } from '../lock/removal-area.js';
import { daemonReload, enableUnit, restartUnit } from '../systemd/systemd.js';
import { stopAndDisableLinked } from '../systemd/unit-links.js';
import { NATIVE_SETUP_TIMEOUT_MS, runNativeSetup, stopNativeSetup } from '../workspace/native-setup.js';
import { verifyDocuments, writeDocuments } from '../workspace/documents.js';
import { relocate, type Id, type InnerStep, type PlannedMarker, type PlannedOwnership, type Step } from './steps.js';

/** What only running the steps could tell: the accounts they created and the claim token they staked. */
export interface Applied {
  accounts: Map<string, Account>;
  claimToken?: string;
  /** When the unit's restart began: activation counts its time to ready from there. */
  restartedAt?: number;
}

export async function apply(ctx: OpContext, steps: readonly Step[]): Promise<Applied> {
  const applied: Applied = { accounts: new Map() };
  for (const step of steps) await applyStep(ctx, step, applied);
  return applied;
}

async function applyStep(ctx: OpContext, step: Step, applied: Applied): Promise<void> {
  const resolve = resolver(applied);
  switch (step.op) {
    case 'ensure-dir':
    case 'write-marker':
      return applyInner(step, resolve);
    case 'sweep-temps':
      return sweepTemps(step.dir, step.prefix);
    case 'create-dir-atomic':
      return createDirAtomic(step.path, ownership(step.owner, resolve), (temp) => {
        for (const inner of step.inside) applyInner({ ...inner, path: relocate(inner.path, step.path, temp) }, resolve);
      });
    case 'write-file':
      return writeFileAtomic(step.path, step.content, ownership(step.owner, resolve));
    case 'create-password-file':
      ensurePasswordFile(step.path);
      return;
    case 'replace-symlink':
      return replaceSymlink(step.path, step.target);
    case 'remove-file':
      removeFile(step.path);
      return;
    case 'remove-tree':
      await removeTree(ctx.runner, step.path, ctx.session.signal);
      return;
    case 'stage-removal':
      stageRemoval(ctx.runtime.root, step.path, owner(step));
      return;
    case 'finish-removals': {
      const claims = await claimRemovals(ctx.runtime.root, owner(step), ctx.session.signal);
      // Security: the removal walks what the Agent planted, so it never runs under the host lock.
      await ctx.lock?.release();
      return finishRemovals(ctx.runner, claims, ctx.session.signal, () => ctx.session.remainingMs());
    }
    case 'rename':
      beforeChange();
      renameSync(step.from, step.to);
      return syncDir(parentOf(step.to));
    case 'record-ports':
      return recordPorts(ctx.runtime.root, step.ports);
    case 'create-account':
      applied.accounts.set(step.name, await createAccount(ctx.runner, step));
      return;
    case 'remove-account':
      return removeAccount(ctx.runner, step.marker, step.account, ctx.session.signal);
    case 'enable-unit':
      await enableUnit(ctx.runner, step.path);
      return;
    case 'stop-and-disable':
      return stopAndDisableLinked(ctx.runner, ctx.runtime.systemdUnitDirectory, step.unit);
    case 'daemon-reload':
      await daemonReload(ctx.runner);
      return;
    case 'restart-unit':
      applied.restartedAt = Date.now();
      return restartUnit(ctx.runner, step.unit, step.failed);
    case 'stake-claim':
      applied.claimToken = stakeToken(step.path);
      return;
    case 'drop-claim':
      removeFile(step.path);
      return;
    case 'native-setup':
      beforeChange();
      return runNativeSetup(ctx.runner, step.run, ctx.session.signal, Math.min(NATIVE_SETUP_TIMEOUT_MS, ctx.session.remainingMs() - 5000));
    case 'stop-native-setup':
      beforeChange();
      return stopNativeSetup(ctx.runner, step.unit);
    case 'write-workspace':
      beforeChange();
      return writeDocuments(ctx.runner, step.target, step.documents, step.replaceable, ctx.session.signal);
    case 'verify-workspace':
      ctx.session.checkpoint();
      return verifyDocuments(ctx.runner, step.target, step.digests, ctx.session.signal);
    case 'checkpoint':
      return ctx.session.checkpoint();
    default:
      return assertNever(step, 'plan step');
  }
}

const owner = (step: { namespaceId: string; agentId?: string }) => ({ namespaceId: step.namespaceId, ...(step.agentId === undefined ? {} : { agentId: step.agentId }) });

function applyInner(step: InnerStep, resolve: (id: Id) => number): void {
  if (step.op === 'ensure-dir') ensureDir(step.path, ownership(step.owner, resolve), step.repairMode ? { repairMode: true } : {});
  else writeMarker(step.path, resolvedMarker(step.marker, resolve));
}

/** An account a plan named, with the IDs its creation gave it. */
export function resolveAccount(applied: Applied, planned: { name: string; uid: Id; gid: Id }): Account {
  const resolve = resolver(applied);
  return { name: planned.name, uid: resolve(planned.uid), gid: resolve(planned.gid) };
}

function resolver(applied: Applied): (id: Id) => number {
  return (id) => {
    if (typeof id === 'number') return id;
    const name = 'uidOf' in id ? id.uidOf : id.gidOf;
    const account = applied.accounts.get(name);
    // A planner bug, not a host condition: the plan named an account no earlier step created.
    if (!account) throw new Error(`plan refers to account ${name} before creating it`);
    return 'uidOf' in id ? account.uid : account.gid;
  };
}

function ownership(owner: PlannedOwnership, resolve: (id: Id) => number): Ownership {
  return { uid: resolve(owner.uid), gid: resolve(owner.gid), mode: owner.mode };
}

function resolvedMarker(marker: PlannedMarker, resolve: (id: Id) => number) {
  return marker.kind === 'agent' ? { ...marker, uid: resolve(marker.uid), gid: resolve(marker.gid) } : marker;
}
