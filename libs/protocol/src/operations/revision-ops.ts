// verify-, stop- and retire-revision: the same arguments, different effects.
import * as z from 'zod/mini';
import { agentOwner, revisionIdentity } from '../identity.js';

export const revisionTargetArgs = z.strictObject({ owner: agentOwner, revision: revisionIdentity });

export const verifyRevisionArgs = revisionTargetArgs;
export const verifyRevisionResult = z.strictObject({
  snapshot: z.boolean(),
  current: z.boolean(),
  served: z.boolean(),
  /** The Agent's gateway port when the Agent exists on the host. */
  port: z.optional(z.int()),
});

export const stopRevisionArgs = revisionTargetArgs;
export const stopRevisionResult = z.strictObject({ unitFound: z.boolean(), currentRemoved: z.boolean() });

export const retireRevisionArgs = revisionTargetArgs;
export const retireRevisionResult = z.strictObject({ removed: z.boolean(), wasCurrent: z.boolean() });
