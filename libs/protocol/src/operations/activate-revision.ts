// activate-revision: render the unit, switch current, restart, wait for readiness, record served.
import * as z from 'zod/mini';
import { resourceId, sha256Hex } from '../fields.js';
import { agentOwner, revisionIdentity } from '../identity.js';
import { launchEnvironment } from '../launch.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_CONFIGURATION_HASH, EXAMPLE_OWNER, EXAMPLE_PORT, EXAMPLE_REVISION } from './examples.js';

export const MAX_READINESS_TIMEOUT_MS = 120_000;

export const activateRevisionOperation = lazyOperation(true, () => ({
  args: z.strictObject({
    owner: agentOwner,
    revision: revisionIdentity,
    configurationHash: sha256Hex,
    launchEnvironment,
    readinessTimeoutMs: z.int().check(z.minimum(1000), z.maximum(MAX_READINESS_TIMEOUT_MS)),
    /** OCC's WorkspaceSetup id: the gateway starts only once the workspace marker records exactly this setup. */
    workspaceSetupId: z.optional(resourceId),
  }),
  result: z.strictObject({
    port: z.int(),
    unit: z.string(),
    unitChanged: z.boolean(),
    /** From the restart being issued to the first 200 on /readyz. */
    readyMs: z.int().check(z.minimum(0)),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const activateRevisionExample = (): OperationExample<typeof activateRevisionOperation> => ({
  args: {
    owner: EXAMPLE_OWNER,
    revision: EXAMPLE_REVISION,
    configurationHash: EXAMPLE_CONFIGURATION_HASH,
    launchEnvironment: { OCC_IAM_TOKEN_REF: 'opaque-iam-1' },
    readinessTimeoutMs: MAX_READINESS_TIMEOUT_MS,
  },
  result: { port: EXAMPLE_PORT, unit: 'openclaw-enterprise-gateway-0123456789ab.service', unitChanged: true, readyMs: 1200 },
});
