// delete-namespace: validate every owned Agent, then stop units and remove the tree and accounts.
import * as z from 'zod/mini';
import { namespaceIdentity } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_ACCOUNT, EXAMPLE_OWNER } from './examples.js';

export const deleteNamespaceOperation = lazyOperation(true, () => ({
  args: z.strictObject({ namespace: namespaceIdentity }),
  result: z.strictObject({
    treeExisted: z.boolean(),
    agentsRemoved: z.int().check(z.minimum(0)),
    accountsRemoved: z.array(z.string()),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const deleteNamespaceExample = (): OperationExample<typeof deleteNamespaceOperation> => ({
  args: { namespace: EXAMPLE_OWNER.namespace },
  result: { treeExisted: true, agentsRemoved: 1, accountsRemoved: [EXAMPLE_ACCOUNT.name] },
});
