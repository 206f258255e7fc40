// verify-revision: whether a revision is staged, current and served; changes nothing.
import * as z from 'zod/mini';
import { revisionTarget } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_OWNER, EXAMPLE_PORT, EXAMPLE_REVISION } from './examples.js';

export const verifyRevisionOperation = lazyOperation(false, () => ({
  args: revisionTarget,
  result: z.strictObject({
    snapshot: z.boolean(),
    current: z.boolean(),
    served: z.boolean(),
    /** The Agent's gateway port when the Agent exists on the host. */
    port: z.optional(z.int()),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const verifyRevisionExample = (): OperationExample<typeof verifyRevisionOperation> => ({
  args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION },
  result: { snapshot: true, current: true, served: true, port: EXAMPLE_PORT },
});
