// retire-revision: remove one revision's snapshot, stopping the gateway first when it is current.
import * as z from 'zod/mini';
import { revisionTarget } from '../identity.js';
import { defineOperation } from './define.js';
import { EXAMPLE_OWNER, EXAMPLE_REVISION } from './examples.js';

export const retireRevisionOperation = defineOperation({
  args: revisionTarget,
  result: z.strictObject({ removed: z.boolean(), wasCurrent: z.boolean() }),
  mutates: true,
  example: {
    args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION },
    result: { removed: true, wasCurrent: false },
  },
});
