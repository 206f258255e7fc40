// Verification of the markers, snapshots, unit file and unit link an operation is about to rely on.
import { readFileSync } from 'node:fs';
import {
  agentMarker,
  hasOwnershipHeader,
  SYSTEMD_LOAD_PATH,
  unitLinkPath,
  namespaceMarker,
  revHash,
  revisionLayoutAt,
  revisionMarker,
  servedMarker,
  sha256Hex,
  type AgentLayout,
  type AgentMarker,
  type RevisionEntry,
  type RevisionLayout,
  type RevisionMarker,
} from '@occ-ssh/markers';
import { DRIVER_ID, type AgentOwner, type NamespaceIdentity, type RevisionIdentity } from '@occ-ssh/protocol';
import { expectOwner, readMarker } from './marker-io.js';
import { ROOT_PRIVATE_DIR, lstatOrNull, ownershipError, readOwnedFile, readSymlink } from './safe-read.js';

export function agentOwnerFields(owner: AgentOwner) {
  return { driver: DRIVER_ID, namespaceId: owner.namespace.id, agentId: owner.agent.id, servicePrincipalId: owner.servicePrincipal.id };
}

/** The Namespace marker must exist and name exactly this Namespace. */
export function verifyNamespace(markerPath: string, namespace: NamespaceIdentity): void {
  const marker = readMarker(markerPath, namespaceMarker);
  if (!marker) throw ownershipError(markerPath, 'Namespace marker is missing; ensure the Namespace first');
  expectOwner(markerPath, marker, { driver: DRIVER_ID, namespaceId: namespace.id, namespaceName: namespace.name });
}

export function readAgent(layout: AgentLayout, owner: AgentOwner): AgentMarker | null {
  const marker = readMarker(layout.marker, agentMarker);
  if (marker) expectOwner(layout.marker, marker, agentOwnerFields(owner));
  return marker;
}

export function requireAgent(layout: AgentLayout, owner: AgentOwner): AgentMarker {
  const marker = readAgent(layout, owner);
  if (!marker) throw ownershipError(layout.marker, 'Agent marker is missing; prepare a revision first');
  return marker;
}

/** A revision marker that exists must match this Agent and, if given, this exact revision. */
export function readRevision(paths: RevisionLayout, owner: AgentOwner, revision?: RevisionIdentity): RevisionMarker | null {
  const marker = readMarker(paths.marker, revisionMarker);
  if (!marker) return null;
  expectOwner(paths.marker, marker, agentOwnerFields(owner));
  if (revision) expectOwner(paths.marker, marker, { revisionId: revision.id, revisionNumber: revision.number });
  return marker;
}

/** A stored revision's marker, or null: it must be this Agent's and its directory must be named for its revision ID. */
export function readRevisionDir(layout: AgentLayout, name: string, owner: AgentOwner): { paths: RevisionLayout; marker: RevisionMarker | null } {
  const paths = revisionLayoutAt(layout.dir, name);
  const marker = readMarker(paths.marker, revisionMarker);
  if (marker) verifyStoredRevision({ name, layout: paths, marker }, owner);
  return { paths, marker };
}

/** A revision the tree reader found must be this Agent's and stored under its own revision ID's directory. */
export function verifyStoredRevision({ name, layout, marker }: RevisionEntry & { marker: RevisionMarker }, owner: AgentOwner): void {
  expectOwner(layout.marker, marker, agentOwnerFields(owner));
  if (revHash(marker.revisionId) !== name) throw ownershipError(layout.marker, "revision marker is stored under another revision's directory");
}

/** Security: snapshot bytes must still hash to what the revision marker recorded. */
export function verifySnapshot(paths: RevisionLayout, marker: RevisionMarker, gid: number): Buffer {
  const dir = lstatOrNull(paths.dir);
  if (!dir?.isDirectory() || dir.uid !== 0 || dir.gid !== 0 || (dir.mode & 0o7777) !== ROOT_PRIVATE_DIR.mode) {
    throw ownershipError(paths.dir, 'snapshot directory is not the root-owned directory the driver made');
  }
  const bytes = readOwnedFile(paths.config, { uid: 0, gid, mode: 0o640 });
  if (bytes === null) throw ownershipError(paths.config, 'snapshot is missing');
  if (sha256Hex(bytes) !== marker.configurationHash) throw ownershipError(paths.config, 'snapshot bytes changed since preparation');
  return bytes;
}

/** Security: a unit file that exists must start with this Namespace/Agent's exact header. */
export function verifyUnitFile(layout: AgentLayout, owner: AgentOwner): string | null {
  verifyUnitLinks(layout);
  const stat = lstatOrNull(layout.unitFile);
  if (stat === null) return null;
  if (!stat.isFile() || stat.uid !== 0) throw ownershipError(layout.unitFile, 'unit is not a root-owned regular file');
  const text = readFileSync(layout.unitFile, 'utf8');
  if (!hasOwnershipHeader(text, owner.namespace.id, owner.agent.id)) {
    throw ownershipError(layout.unitFile, 'unit file lacks the exact Namespace/Agent ownership header; refusing to adopt it');
  }
  return text;
}

/**
 * Security: with the unit directory outside systemd's load path, systemctl finds the unit by name
 * through its link, so every stop, disable or restart by that name would act on whatever else holds
 * the name there. The only entry allowed is our own link, pointing exactly at the unit file; a
 * foreign one is refused before any change, never followed, removed or replaced.
 */
function verifyUnitLinks(layout: AgentLayout): void {
  const unitDirectory = layout.unitFile.slice(0, layout.unitFile.lastIndexOf('/'));
  const link = unitLinkPath(unitDirectory, layout.unitName);
  if (link === null) return;
  for (const dir of SYSTEMD_LOAD_PATH) {
    const path = `${dir}/${layout.unitName}`;
    const stat = lstatOrNull(path);
    if (stat === null) continue;
    if (path === link && stat.isSymbolicLink() && readSymlink(path) === layout.unitFile) continue;
    throw ownershipError(path, `systemd's load path holds another unit of this name than the link to ${layout.unitFile}; refusing to act on it`);
  }
}

/** The revision directory name `current` points at, or null; anything else is refused. */
export function readCurrent(layout: AgentLayout): string | null {
  const target = readSymlink(layout.current);
  if (target === null) return null;
  if (!/^revisions\/[0-9a-f]{12}$/.test(target)) throw ownershipError(layout.current, `points at an unexpected target`);
  return target;
}

export function readServed(layout: AgentLayout, owner: AgentOwner) {
  const marker = readMarker(layout.served, servedMarker);
  if (marker) expectOwner(layout.served, marker, { driver: DRIVER_ID, namespaceId: owner.namespace.id, agentId: owner.agent.id });
  return marker;
}
