// activate-revision: render the unit, switch current, restart, wait for readiness, record served.
import * as z from 'zod/mini';
import { sha256Hex } from '../fields.js';
import { agentOwner, revisionIdentity } from '../identity.js';
import { launchEnvironment } from '../launch.js';

export const MAX_READINESS_TIMEOUT_MS = 120_000;

export const activateRevisionArgs = z.strictObject({
  owner: agentOwner,
  revision: revisionIdentity,
  configurationHash: sha256Hex,
  launchEnvironment,
  readinessTimeoutMs: z.int().check(z.minimum(1000), z.maximum(MAX_READINESS_TIMEOUT_MS)),
});

export const activateRevisionResult = z.strictObject({
  port: z.int(),
  unit: z.string(),
  unitChanged: z.boolean(),
  /** From the restart being issued to the first 200 on /readyz. */
  readyMs: z.int().check(z.minimum(0)),
});
