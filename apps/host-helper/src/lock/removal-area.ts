// Deleted trees leave the host lock's reach. Under the lock, once an Agent's units are stopped, its
// tree is renamed into the removal area (<root>/.removing, root 0700, on the root's file system), after
// a marker recording it; the removal itself runs after the lock is released, bounded by the session,
// and the next deletion of the same Agent or Namespace resumes one that was cut short.
//
// Security: an Agent can plant millions of names in its home/ and state/, and removing them takes
// about a second per 30,000. Under the lock that time was every sibling's wait. In the area nothing of
// the Agent's reaches the tree (its parent is root's 0700, its processes are gone), so root's `rm`
// walks a tree no one changes, never through a link and never into another mount, even once the
// account is removed and its UID handed to a new account.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { ComputeError, DRIVER_ID } from '@occ-ssh/protocol';
import { removalArea, removalLayout, removalMarker, removalOfMarkerFile, type RemovalMarker } from '@occ-ssh/markers';
import { ensureDir, parentOf, removeFile, sweepTemps, syncDir } from '../fs/atomic-write.js';
import { beforeChange } from '../run/change-guard.js';
import { holdFlock, type HeldFlock } from './flock-child.js';
import { readMarker, writeMarker } from '../fs/marker-io.js';
import { listDir, lstatOrNull } from '../fs/safe-read.js';
import type { HostRunner } from '../run/system.js';
import { removeTreeBounded } from '../fs/tree-removal.js';

const AREA_OWNER = { uid: 0, gid: 0, mode: 0o700 };

/** Whose removals an operation finishes: a Namespace's (its Agents' included), or one Agent's. */
export interface RemovalOwner {
  namespaceId: string;
  agentId?: string;
}

/**
 * A recorded removal this helper will finish: its marker open, and its flock held (claimed) or, when
 * another helper held it at claim time, waited for once the host lock is released.
 */
export interface Claim {
  tree: string;
  marker: string;
  fd: number;
  held?: HeldFlock;
}

/** Writes the marker, then renames `from` into the area in one step. Under the lock; returns where the tree went. */
export function stageRemoval(root: string, from: string, owner: RemovalOwner): string {
  ensureDir(removalArea(root), AREA_OWNER);
  const { tree, marker } = removalLayout(root, randomBytes(8).toString('hex'));
  const record: RemovalMarker = { kind: 'removal', version: 1, driver: DRIVER_ID, ...owner, from, stagedAt: new Date().toISOString() };
  // A kill between the two leaves a marker with no tree, which the next claim drops: never a tree without its marker.
  writeMarker(marker, record);
  beforeChange();
  fs.renameSync(from, tree);
  syncDir(removalArea(root));
  syncDir(parentOf(from));
  return tree;
}

/**
 * Under the lock: claims every recorded removal of `owner`. Taken under the lock, so no staging is half
 * done; held past it by the flock, so two helpers never remove one tree. A removal another helper holds
 * (one whose session was cut, still ending its `rm`, or a concurrent deletion) is returned unheld, for
 * finishRemovals to wait for: answering before it ends would leave its tree behind if that helper stops.
 */
export async function claimRemovals(root: string, owner: RemovalOwner, signal: AbortSignal): Promise<Claim[]> {
  const area = removalArea(root);
  if (lstatOrNull(area) === null) return [];
  ensureDir(area, AREA_OWNER);
  sweepTemps(area);
  const claims: Claim[] = [];
  for (const name of listDir(area)) {
    const token = removalOfMarkerFile(name);
    if (token === null) continue;
    const { tree, marker } = removalLayout(root, token);
    const record = readMarker(marker, removalMarker);
    if (!record || record.namespaceId !== owner.namespaceId || (owner.agentId !== undefined && record.agentId !== owner.agentId)) continue;
    const fd = fs.openSync(marker, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const busy = new ComputeError('conflict', `${marker} is being removed by another helper`);
    try {
      // Not waited for under the lock (flock's shortest wait, 0.1 s): the wait comes after its release.
      claims.push({ tree, marker, fd, held: await holdFlock(fd, 0, signal, () => busy, marker) });
    } catch (error) {
      if (error === busy) {
        claims.push({ tree, marker, fd });
        continue;
      }
      fs.closeSync(fd);
      await releaseClaims(claims);
      throw error;
    }
  }
  return claims;
}

/**
 * Outside the lock: removes each claimed tree with root's bounded `rm`, then its marker. A claim another
 * helper held is waited for, within the call's deadline (`remainingMs`, and `signal` ends it); once it
 * is ours, a marker still linked means that helper stopped short, and this one finishes its removal.
 * Every claim is released either way.
 */
export async function finishRemovals(runner: HostRunner, claims: readonly Claim[], signal: AbortSignal, remainingMs: () => number): Promise<void> {
  try {
    for (const claim of claims.filter((c) => c.held)) await removeClaimed(runner, claim, signal);
    for (const claim of claims.filter((c) => !c.held)) {
      const stillHeld = () => new ComputeError('conflict', `${claim.marker} is still being removed by another helper; retry`, { path: claim.marker });
      claim.held = await holdFlock(claim.fd, remainingMs(), signal, stillHeld, claim.marker);
      if (fs.fstatSync(claim.fd).nlink > 0) await removeClaimed(runner, claim, signal);
    }
  } finally {
    await releaseClaims(claims);
  }
}

async function removeClaimed(runner: HostRunner, { tree, marker }: Claim, signal: AbortSignal): Promise<void> {
  if (lstatOrNull(tree) !== null) {
    beforeChange();
    await removeTreeBounded(runner, tree, signal);
    syncDir(parentOf(tree));
  }
  removeFile(marker);
}

async function releaseClaims(claims: readonly Claim[]): Promise<void> {
  for (const { held, fd } of claims) {
    if (held) await held.release().finally(() => fs.closeSync(fd));
    else fs.closeSync(fd);
  }
}
