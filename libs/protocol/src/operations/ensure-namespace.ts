// ensure-namespace: create or verify the Namespace marker.
import * as z from 'zod/mini';
import { namespaceIdentity } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_OWNER } from './examples.js';

export const ensureNamespaceOperation = lazyOperation(true, () => ({
  args: z.strictObject({ namespace: namespaceIdentity }),
  result: z.strictObject({ created: z.boolean() }),
}));

/** Valid arguments and result, checked by the protocol's tests; fakes and tests start from them. */
export const ensureNamespaceExample = (): OperationExample<typeof ensureNamespaceOperation> => ({ args: { namespace: EXAMPLE_OWNER.namespace }, result: { created: true } });
