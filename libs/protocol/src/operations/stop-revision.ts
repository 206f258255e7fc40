// stop-revision: stop and disable the gateway running a revision; snapshots, home and state stay.
import * as z from 'zod/mini';
import { revisionTarget } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_OWNER, EXAMPLE_REVISION } from './examples.js';

export const stopRevisionOperation = lazyOperation(true, () => ({
  args: revisionTarget,
  result: z.strictObject({ unitFound: z.boolean(), currentRemoved: z.boolean() }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const stopRevisionExample = (): OperationExample<typeof stopRevisionOperation> => ({
  args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION },
  result: { unitFound: true, currentRemoved: true },
});
