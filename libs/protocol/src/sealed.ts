// How an operation reaches the helper. Any local or host user can read every process's argv
// (`ps`, /proc/<pid>/cmdline), so the encoded operation, which carries configuration documents and
// launch placeholder values, travels on the helper's stdin, ahead of the helper's code. The one
// base64 JSON argument on argv only names it: protocol version, SHA-256 and length.
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { MAX_ARGUMENT_BYTES, parseBase64Json } from './argument.js';
import { ComputeError } from './errors.js';
import { sha256Hex } from './fields.js';
import { formatIssues } from './issues.js';
import { PROTOCOL_VERSION } from './version.js';

/** The global the stdin prelude assigns and the helper takes (and deletes) before anything else runs. */
export const SEALED_KEY = 'occ-ssh.operation';

const argumentHeader = z.strictObject({
  protocolVersion: z.literal(PROTOCOL_VERSION),
  sealed: z.strictObject({ sha256: sha256Hex, bytes: z.int().check(z.minimum(1), z.maximum(MAX_ARGUMENT_BYTES)) }),
});
type ArgumentHeader = z.infer<typeof argumentHeader>;

/** Header bounded far below any argv limit: a few dozen bytes of JSON. */
export const MAX_HEADER_BYTES = 512;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface SealedOperation {
  /** The argv argument: base64 JSON of the header. */
  argument: string;
  /** JavaScript placed before the helper's code on stdin; defines the sealed operation text. */
  prelude: string;
}

/**
 * Seals an encoded operation (the output of encodeArgument, or any base64 text a test wants the
 * helper to judge). Base64 needs no escaping inside a JavaScript string literal.
 */
export function sealOperation(encoded: string): SealedOperation {
  if (!BASE64.test(encoded) || encoded.length === 0) throw new TypeError('a sealed operation must be base64 text');
  const header: ArgumentHeader = { protocolVersion: PROTOCOL_VERSION, sealed: { sha256: digest(encoded), bytes: encoded.length } };
  return {
    argument: Buffer.from(JSON.stringify(header), 'utf8').toString('base64'),
    prelude: `globalThis[Symbol.for(${JSON.stringify(SEALED_KEY)})]=${JSON.stringify(encoded)};\n`,
  };
}

/** The helper's stdin: the prelude, then the helper's own bytes. */
export function helperInput(helperBytes: Uint8Array, sealed: SealedOperation): Buffer {
  return Buffer.concat([Buffer.from(sealed.prelude, 'utf8'), helperBytes]);
}

/**
 * The helper's side: checks the argv header and returns the sealed text it names, still to be
 * decoded by decodeArgument. Every mismatch is a permanent configuration failure.
 */
export function openSealed(argument: unknown, sealed: unknown): string {
  if (typeof argument !== 'string' || argument.length === 0) throw new ComputeError('configuration', 'missing operation argument');
  if (argument.length > MAX_HEADER_BYTES) throw new ComputeError('configuration', `operation argument exceeds ${MAX_HEADER_BYTES} bytes`);
  const header = argumentHeader.safeParse(parseBase64Json(argument));
  if (!header.success) throw new ComputeError('configuration', `invalid operation argument: ${formatIssues(header.error)}`);
  if (typeof sealed !== 'string') throw new ComputeError('configuration', 'the sealed operation is missing from the helper input');
  if (sealed.length !== header.data.sealed.bytes || digest(sealed) !== header.data.sealed.sha256) {
    throw new ComputeError('configuration', 'the sealed operation does not match the digest in the operation argument');
  }
  return sealed;
}

function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const PRELUDE = /^globalThis\[Symbol\.for\("occ-ssh\.operation"\)\]="([A-Za-z0-9+/]*={0,2})";\n/;

/** Splits a helper input back into the sealed text and the helper's bytes (for tests and audits). */
export function splitHelperInput(stdin: Uint8Array): { sealed: string; helper: Buffer } | undefined {
  const bytes = Buffer.from(stdin);
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return undefined;
  const match = PRELUDE.exec(bytes.subarray(0, newline + 1).toString('utf8'));
  return match ? { sealed: match[1]!, helper: bytes.subarray(newline + 1) } : undefined;
}
