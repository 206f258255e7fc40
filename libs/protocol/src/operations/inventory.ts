// inventory: a read-only view of every Namespace and Agent under the root, for operators.
import * as z from 'zod/mini';

export const inventoryArgs = z.strictObject({});

export const inventoryRevision = z.strictObject({ revisionId: z.string(), number: z.int(), auth: z.string() });

export const inventoryAgent = z.strictObject({
  agentId: z.string(),
  servicePrincipalId: z.string(),
  account: z.string(),
  uid: z.int(),
  gid: z.int(),
  port: z.int(),
  unit: z.string(),
  /** systemd's ActiveState, or `not-found` when no unit file exists. */
  unitState: z.string(),
  enabled: z.boolean(),
  currentRevisionId: z.nullable(z.string()),
  servedRevisionId: z.nullable(z.string()),
  servedAt: z.nullable(z.string()),
  ready: z.boolean(),
  revisions: z.array(inventoryRevision),
});

export const inventoryNamespace = z.strictObject({
  namespaceId: z.string(),
  namespaceName: z.string(),
  agents: z.array(inventoryAgent),
});

export const inventoryResult = z.strictObject({
  namespaces: z.array(inventoryNamespace),
  /** Anything that could not be read or did not verify; status reports it instead of failing. */
  problems: z.array(z.strictObject({ path: z.string(), message: z.string() })),
  /** The newest audit lines of mutating operations on this host (journal identifier occ-ssh-helper), oldest first. */
  recentAudit: z.array(z.string()),
});

export type InventoryResult = z.infer<typeof inventoryResult>;
export type InventoryAgent = z.infer<typeof inventoryAgent>;
