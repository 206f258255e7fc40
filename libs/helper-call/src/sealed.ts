// How an operation reaches the helper. Any local or host user can read every process's argv
// (`ps`, /proc/<pid>/cmdline), so the encoded operation, which carries configuration documents and
// launch placeholder values, travels on the helper's stdin, ahead of the helper's code. The one
// base64 JSON argument on argv only names it: protocol version, SHA-256 and length.
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { ComputeError, MAX_ARGUMENT_BYTES, PROTOCOL_VERSION, formatIssues, parseBase64Json, sha256Hex } from '@occ-ssh/protocol';
import { preludeOf, type SealedOperation } from './input.js';

const argumentHeader = z.strictObject({
  protocolVersion: z.literal(PROTOCOL_VERSION),
  sealed: z.strictObject({ sha256: sha256Hex, bytes: z.int().check(z.minimum(1), z.maximum(MAX_ARGUMENT_BYTES)) }),
});

/** Header bounded far below any argv limit: a few dozen bytes of JSON. */
export const MAX_HEADER_BYTES = 512;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Seals an encoded operation (the output of encodeArgument, or any base64 text a test wants the
 * helper to judge). Base64 needs no escaping inside a JavaScript string literal.
 */
export function sealOperation(encoded: string): SealedOperation {
  if (!BASE64.test(encoded) || encoded.length === 0) throw new TypeError('a sealed operation must be base64 text');
  return sealRaw(encoded);
}

/**
 * For tests of the helper's refusals: seals any value as sealOperation would, without its check.
 * A string gets a header naming its own digest and length (so the helper's decoder, not the
 * sealing, judges it); any other value is assigned as JSON under the header `named`, or that of its JSON text.
 */
export function sealRaw(value: unknown, named: string = typeof value === 'string' ? value : JSON.stringify(value)): SealedOperation {
  const header = { protocolVersion: PROTOCOL_VERSION, sealed: { sha256: digest(named), bytes: named.length } };
  return { argument: Buffer.from(JSON.stringify(header), 'utf8').toString('base64'), prelude: preludeOf(value) };
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
