// The single argument of one helper invocation: versions, trusted settings and the operation.
import * as z from 'zod/mini';
import { sha256Hex } from './fields.js';
import { OPERATION_NAMES, OPERATIONS, type OperationArgs, type OperationName } from './operations/index.js';
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

/** One envelope schema per operation; a union of these types lets a parsed envelope narrow on `operation`. */
type Variant<O extends OperationName = OperationName> = O extends OperationName
  ? z.ZodMiniObject<typeof envelopeBase & { operation: z.ZodMiniLiteral<O>; args: (typeof OPERATIONS)[O]['args'] }, z.core.$strict>
  : never;

function variant<O extends OperationName>(operation: O): Variant<O> {
  // The cast only restores what indexing OPERATIONS with a generic name loses: this operation's own args schema.
  return z.strictObject({ ...envelopeBase, operation: z.literal(operation), args: OPERATIONS[operation].args }) as Variant<O>;
}

export type Envelope = z.infer<Variant>;

function allOperations() {
  const [first, ...rest] = OPERATION_NAMES.map((name) => variant(name));
  return z.discriminatedUnion('operation', [first!, ...rest]);
}

/** Every operation's envelope, as one discriminated union; built on first use, since the helper never needs it whole. */
export const envelope = z.lazy(allOperations);

const variants = new Map<OperationName, Variant>();

/**
 * Parses as `envelope` does. An envelope naming an operation is parsed by that operation's schema
 * alone (what the union would hand it to), built on first use, so a helper call builds only its own;
 * any other value by the whole union, so its errors read the same.
 */
export function parseEnvelope(value: unknown): z.core.util.SafeParseResult<Envelope> {
  const operation = (value as { operation?: unknown } | null)?.operation;
  if (typeof operation !== 'string' || !Object.hasOwn(OPERATIONS, operation)) return envelope.safeParse(value);
  const name = operation as OperationName;
  const schema = variants.get(name) ?? variants.set(name, variant(name)).get(name)!;
  return schema.safeParse(value) as z.core.util.SafeParseResult<Envelope>;
}
type EnvelopeOf<O extends OperationName> = Extract<Envelope, { operation: O }>;

interface EnvelopeInput<O extends OperationName> {
  operation: O;
  args: OperationArgs<O>;
  runtime: RuntimeSettings;
  configurationHash: string;
  requestId: string;
}

export function makeEnvelope<O extends OperationName>(input: EnvelopeInput<O>): EnvelopeOf<O> {
  return { protocolVersion: PROTOCOL_VERSION, ...input } as unknown as EnvelopeOf<O>;
}
