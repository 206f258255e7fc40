// ensure-namespace: create or verify the Namespace marker.
import * as z from 'zod/mini';
import { namespaceIdentity } from '../identity.js';

export const ensureNamespaceArgs = z.strictObject({ namespace: namespaceIdentity });
export const ensureNamespaceResult = z.strictObject({ created: z.boolean() });
