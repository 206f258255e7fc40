// The JSON markers the helper writes on a host. Each records the exact owner it belongs to.
import { gatewayAuthMode, namespaceName, resourceId, sha256Hex } from '@occ-ssh/protocol';
import * as z from 'zod/mini';

export const MARKER_VERSION = 1 as const;
const driver = z.literal('compute-ssh');
const version = z.literal(MARKER_VERSION);
const id = z.int().check(z.minimum(1), z.maximum(2 ** 31 - 2));

/** Who an account or an Agent belongs to, and its account name: recorded alike in both markers. */
const agentOwnership = {
  version,
  driver,
  namespaceId: resourceId,
  agentId: resourceId,
  servicePrincipalId: resourceId,
  account: z.string(),
};

export const accountMarker = z
  .strictObject({
    kind: z.literal('account'),
    ...agentOwnership,
    /** `creating` is written before useradd so an interrupted creation is recognised as ours. */
    state: z.enum(['creating', 'active']),
    uid: z.optional(id),
    gid: z.optional(id),
  })
  .check(z.refine((m) => m.state === 'creating' || (m.uid !== undefined && m.gid !== undefined), 'an active account marker records uid and gid'));

export const namespaceMarker = z.strictObject({
  kind: z.literal('namespace'),
  version,
  driver,
  namespaceId: resourceId,
  namespaceName,
});

export const agentMarker = z.strictObject({
  kind: z.literal('agent'),
  ...agentOwnership,
  uid: id,
  gid: id,
  port: z.int().check(z.minimum(1024), z.maximum(65535)),
});

export const revisionMarker = z.strictObject({
  kind: z.literal('revision'),
  version,
  driver,
  namespaceId: resourceId,
  agentId: resourceId,
  servicePrincipalId: resourceId,
  revisionId: resourceId,
  revisionNumber: z.int().check(z.minimum(1)),
  configurationHash: sha256Hex,
  harness: z.literal('openclaw/embedded'),
  auth: gatewayAuthMode,
});

export const servedMarker = z.strictObject({
  kind: z.literal('served'),
  version,
  driver,
  namespaceId: resourceId,
  agentId: resourceId,
  revisionId: resourceId,
  revisionNumber: z.int().check(z.minimum(1)),
  configurationHash: sha256Hex,
  port: z.int().check(z.minimum(1024), z.maximum(65535)),
  servedAt: z.iso.datetime(),
});

/**
 * A deleted tree waiting in the removal area (see removalLayout): whose it was and where it stood.
 * Written before the tree is renamed there, so every tree in the area has one.
 */
export const removalMarker = z.strictObject({
  kind: z.literal('removal'),
  version,
  driver,
  namespaceId: resourceId,
  /** Absent for a whole Namespace's tree. */
  agentId: z.optional(resourceId),
  from: z.string(),
  stagedAt: z.iso.datetime(),
});

/** A directory's change time in nanoseconds (decimal), or null when it was absent. */
const changeTime = z.nullable(z.string().check(z.regex(/^[0-9]{1,30}$/)));

/**
 * The gateway port of every Agent directory, by Namespace directory name and Agent directory name,
 * written under the lock after each change to that set, with the change time of `namespaces/` and of
 * each `agents/` it read. Trusted only while those times and names still hold (see the helper's
 * gateway/port-index.ts); otherwise the markers are read and the file written again.
 */
export const portIndex = z.strictObject({
  kind: z.literal('ports'),
  version,
  driver,
  changed: changeTime,
  /** Agent directory name to port: checked by the reader (the helper's gateway/port-index.ts) in a plain loop, since a schema per entry costs about 20 ms for 1,000 Agents in a helper that runs once (its parse code is cold), under the lock. */
  namespaces: z.record(z.string(), z.strictObject({ changed: changeTime, agents: z.unknown() })),
});

export type AccountMarker = z.infer<typeof accountMarker>;
export type NamespaceMarker = z.infer<typeof namespaceMarker>;
export type AgentMarker = z.infer<typeof agentMarker>;
export type RevisionMarker = z.infer<typeof revisionMarker>;
export type ServedMarker = z.infer<typeof servedMarker>;
export type RemovalMarker = z.infer<typeof removalMarker>;
export type PortIndex = z.infer<typeof portIndex>;

/** Stable, human-diffable marker bytes: sorted keys, two-space indent, trailing newline. */
export function markerText(marker: AccountMarker | NamespaceMarker | AgentMarker | RevisionMarker | ServedMarker | RemovalMarker | PortIndex): string {
  const sorted = Object.fromEntries(Object.entries(marker).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${JSON.stringify(sorted, null, 2)}\n`;
}
