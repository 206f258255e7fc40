// prepare-revision: account, port, Agent directories and the immutable snapshot; never the unit.
import * as z from 'zod/mini';
import { sha256Hex } from '../fields.js';
import { agentOwner, revisionIdentity } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_ACCOUNT, EXAMPLE_CONFIGURATION, EXAMPLE_OWNER, EXAMPLE_PORT, EXAMPLE_REVISION } from './examples.js';

/** How the rendered document authenticates; decides whether the managed password exists. */
export const gatewayAuthMode = z.enum(['password', 'trusted-proxy', 'trusted-proxy-password']);
export type GatewayAuthMode = z.infer<typeof gatewayAuthMode>;

export const MAX_DOCUMENT_BYTES = 48 * 1024;

const preparedConfiguration = z.strictObject({
  /** The exact bytes of openclaw.json as the driver rendered them. */
  document: z.string().check(z.refine((text) => Buffer.byteLength(text) <= MAX_DOCUMENT_BYTES, `configuration document exceeds ${MAX_DOCUMENT_BYTES} bytes`)),
  /** SHA-256 of `document`, recomputed and checked by the helper. */
  hash: sha256Hex,
  auth: gatewayAuthMode,
});

export const prepareRevisionOperation = lazyOperation(true, () => ({
  args: z.strictObject({
    owner: agentOwner,
    revision: revisionIdentity,
    harness: z.literal('openclaw/embedded'),
    configuration: preparedConfiguration,
  }),
  result: z.strictObject({
    ready: z.boolean(),
    reason: z.optional(z.enum(['superseded'])),
    port: z.int(),
    account: z.strictObject({ name: z.string(), uid: z.int(), gid: z.int() }),
    snapshot: z.enum(['created', 'verified', 'skipped']),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const prepareRevisionExample = (): OperationExample<typeof prepareRevisionOperation> => ({
  args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION, harness: 'openclaw/embedded', configuration: EXAMPLE_CONFIGURATION },
  result: { ready: true, port: EXAMPLE_PORT, account: EXAMPLE_ACCOUNT, snapshot: 'created' },
});
