// The single argument of one helper invocation: versions, trusted settings and the operation.
import * as z from 'zod/mini';
import { sha256Hex } from './fields.js';
import { OPERATIONS, type OperationArgs, type OperationName } from './operations/index.js';
import { runtimeSettings, type RuntimeSettings } from './runtime.js';
import { PROTOCOL_VERSION } from './version.js';

const envelopeBase = {
  protocolVersion: z.literal(PROTOCOL_VERSION),
  /** SHA-256 of the canonical JSON of `runtime`; the helper recomputes it. */
  configurationHash: sha256Hex,
  runtime: runtimeSettings,
  /** Correlates controller logs with the helper's result; never interpreted. */
  requestId: z.string().check(z.regex(/^[A-Za-z0-9-]{1,64}$/, 'expected a request ID of letters, digits and -')),
};

function variant<O extends OperationName, A extends (typeof OPERATIONS)[O]['args']>(operation: O, args: A) {
  return z.strictObject({ ...envelopeBase, operation: z.literal(operation), args });
}

export const envelope = z.discriminatedUnion('operation', [
  variant('probe', OPERATIONS['probe'].args),
  variant('ensure-namespace', OPERATIONS['ensure-namespace'].args),
  variant('delete-namespace', OPERATIONS['delete-namespace'].args),
  variant('prepare-revision', OPERATIONS['prepare-revision'].args),
  variant('activate-revision', OPERATIONS['activate-revision'].args),
  variant('verify-revision', OPERATIONS['verify-revision'].args),
  variant('stop-revision', OPERATIONS['stop-revision'].args),
  variant('retire-revision', OPERATIONS['retire-revision'].args),
  variant('inventory', OPERATIONS['inventory'].args),
]);

export type Envelope = z.infer<typeof envelope>;
export type EnvelopeOf<O extends OperationName> = Extract<Envelope, { operation: O }>;

export interface EnvelopeInput<O extends OperationName> {
  operation: O;
  args: OperationArgs<O>;
  runtime: RuntimeSettings;
  configurationHash: string;
  requestId: string;
}

export function makeEnvelope<O extends OperationName>(input: EnvelopeInput<O>): EnvelopeOf<O> {
  return { protocolVersion: PROTOCOL_VERSION, ...input } as unknown as EnvelopeOf<O>;
}
