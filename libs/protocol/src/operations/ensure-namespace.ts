// ensure-namespace: create or verify the Namespace marker.
import * as z from 'zod/mini';
import { namespaceIdentity } from '../identity.js';
import { defineOperation } from './define.js';
import { EXAMPLE_OWNER } from './examples.js';

export const ensureNamespaceOperation = defineOperation({
  args: z.strictObject({ namespace: namespaceIdentity }),
  result: z.strictObject({ created: z.boolean() }),
  mutates: true,
  example: { args: { namespace: EXAMPLE_OWNER.namespace }, result: { created: true } },
});
