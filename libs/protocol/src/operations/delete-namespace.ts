// delete-namespace: validate every owned Agent, then stop units and remove the tree and accounts.
import * as z from 'zod/mini';
import { namespaceIdentity } from '../identity.js';

export const deleteNamespaceArgs = z.strictObject({ namespace: namespaceIdentity });
export const deleteNamespaceResult = z.strictObject({
  treeExisted: z.boolean(),
  agentsRemoved: z.int().check(z.minimum(0)),
  accountsRemoved: z.array(z.string()),
});
