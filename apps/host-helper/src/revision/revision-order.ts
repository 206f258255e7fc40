// Revision order on a host: an Agent only moves forward, so a late worker never rolls it back.
import type { AgentLayout, RevisionMarker } from '@occ-ssh/markers';
import type { AgentOwner, RevisionIdentity } from '@occ-ssh/protocol';
import { readCurrent, readRevisionDir, readServed } from '../fs/ownership.js';
import { ownershipError } from '../fs/safe-read.js';

/** The marker of the revision `current` points at, or null when nothing is current. */
function currentRevision(layout: AgentLayout, owner: AgentOwner): RevisionMarker | null {
  const current = readCurrent(layout);
  if (current === null) return null;
  const { marker } = readRevisionDir(layout, current.slice('revisions/'.length), owner);
  if (!marker) throw ownershipError(layout.current, 'points at a revision that has no marker');
  return marker;
}

/**
 * A candidate is superseded only by a revision the host has current or served: a newer snapshot
 * that OCC staged but never published must not make its active revision answer not-ready, since
 * OCC prepares its active revision again on every pass.
 */
export function isSuperseded(layout: AgentLayout, owner: AgentOwner, revision: RevisionIdentity): boolean {
  const current = currentRevision(layout, owner)?.revisionNumber ?? 0;
  const served = readServed(layout, owner)?.revisionNumber ?? 0;
  return Math.max(current, served) > revision.number;
}

/** Security: activating a revision older than the current one is refused; OCC recovers with a new revision. */
export function refuseRollback(layout: AgentLayout, owner: AgentOwner, revision: RevisionIdentity): void {
  const current = currentRevision(layout, owner);
  if (current && current.revisionId !== revision.id && current.revisionNumber >= revision.number) {
    throw ownershipError(layout.current, `revision ${revision.number} is not newer than revision ${current.revisionNumber}, which is current on this host; refusing to roll the Agent back`);
  }
}
