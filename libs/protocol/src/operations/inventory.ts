// inventory: a read-only view of every Namespace and Agent under the root, for operators.
import * as z from 'zod/mini';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_ACCOUNT, EXAMPLE_OWNER, EXAMPLE_PORT, EXAMPLE_REVISION } from './examples.js';

/** Built on first use, as every operation's schemas are (see lazyOperation). */
function inventoryResult() {
  const inventoryRevision = z.strictObject({ revisionId: z.string(), number: z.int(), auth: z.string() });

  const inventoryAgent = z.strictObject({
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
    /** systemd's MemoryCurrent of the unit in bytes; null without memory accounting or a unit, and while it is stopped (inactive). */
    memoryBytes: z.nullable(z.int().check(z.minimum(0))),
    /** systemd's NRestarts: automatic restarts since the unit was last started by hand or by the driver; null without a unit, and while it is stopped (inactive: not read). */
    restarts: z.nullable(z.int().check(z.minimum(0))),
    revisions: z.array(inventoryRevision),
    /** The OCC workspace setup the Agent's marker records as delivered; absent when none was. */
    workspaceSetupId: z.optional(z.string()),
  });

  const inventoryNamespace = z.strictObject({
    namespaceId: z.string(),
    namespaceName: z.string(),
    agents: z.array(inventoryAgent),
  });

  const result = z.strictObject({
    namespaces: z.array(inventoryNamespace),
    /** Anything that could not be read or did not verify; status reports it instead of failing. */
    problems: z.array(z.strictObject({ path: z.string(), message: z.string() })),
    /** The newest audit lines of mutating operations on this host (root's syslog lines under the identifier occ-ssh-helper: _UID=0, never the tag alone), oldest first. */
    recentAudit: z.array(z.string()),
  });
  return result;
}

export const inventoryOperation = lazyOperation(false, () => ({ args: z.strictObject({}), result: inventoryResult() }));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const inventoryExample = (): OperationExample<typeof inventoryOperation> => ({
  args: {},
  result: {
    namespaces: [
      {
        namespaceId: EXAMPLE_OWNER.namespace.id,
        namespaceName: EXAMPLE_OWNER.namespace.name,
        agents: [
          {
            agentId: EXAMPLE_OWNER.agent.id,
            servicePrincipalId: EXAMPLE_OWNER.servicePrincipal.id,
            account: EXAMPLE_ACCOUNT.name,
            uid: EXAMPLE_ACCOUNT.uid,
            gid: EXAMPLE_ACCOUNT.gid,
            port: EXAMPLE_PORT,
            unit: 'openclaw-enterprise-gateway-0123456789ab.service',
            unitState: 'active',
            enabled: true,
            currentRevisionId: EXAMPLE_REVISION.id,
            servedRevisionId: EXAMPLE_REVISION.id,
            servedAt: '2026-01-01T00:00:00.000Z',
            ready: true,
            memoryBytes: 1_020_000_000,
            restarts: 0,
            revisions: [{ revisionId: EXAMPLE_REVISION.id, number: EXAMPLE_REVISION.number, auth: 'password' }],
          },
        ],
      },
    ],
    problems: [],
    recentAudit: [],
  },
});

export type InventoryResult = z.infer<(typeof inventoryOperation)['result']>;
export type InventoryAgent = InventoryResult['namespaces'][number]['agents'][number];
