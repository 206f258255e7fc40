// retire-revision: remove one revision's snapshot, stopping the gateway first when it is current.
import * as z from 'zod/mini';
import { revisionTarget } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_OWNER, EXAMPLE_REVISION } from './examples.js';

export const retireRevisionOperation = lazyOperation(true, () => ({
  args: revisionTarget,
  result: z.strictObject({ removed: z.boolean(), wasCurrent: z.boolean() }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const retireRevisionExample = (): OperationExample<typeof retireRevisionOperation> => ({
  args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION },
  result: { removed: true, wasCurrent: false },
});
