// The exact OCC identities an operation acts for; every marker records them verbatim.
import * as z from 'zod/mini';
import { namespaceName, resourceId } from './fields.js';

export const namespaceIdentity = z.strictObject({ id: resourceId, name: namespaceName });
export const agentIdentity = z.strictObject({ id: resourceId });
export const servicePrincipalIdentity = z.strictObject({ id: resourceId });
export const revisionIdentity = z.strictObject({
  id: resourceId,
  number: z.int().check(z.minimum(1, 'revision numbers start at 1'), z.maximum(Number.MAX_SAFE_INTEGER)),
});

/** Who owns an Agent on a host: the Namespace, the Agent and its ServicePrincipal. */
export const agentOwner = z.strictObject({
  namespace: namespaceIdentity,
  agent: agentIdentity,
  servicePrincipal: servicePrincipalIdentity,
});

/** One revision of one Agent: what verify-, stop- and retire-revision act on. */
export const revisionTarget = z.strictObject({ owner: agentOwner, revision: revisionIdentity });

export type NamespaceIdentity = z.infer<typeof namespaceIdentity>;
export type RevisionIdentity = z.infer<typeof revisionIdentity>;
export type AgentOwner = z.infer<typeof agentOwner>;
