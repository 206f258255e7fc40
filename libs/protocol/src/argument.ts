// Encoding of the one base64 JSON argument, bounded well below Linux's 128 KiB argument limit.
import { ComputeError, formatIssues } from './errors.js';
import { parseEnvelope, type Envelope } from './envelope.js';

/**
 * sshd runs the remote command as one `sh -c` argument, which Linux caps at 128 KiB
 * (MAX_ARG_STRLEN); 96 KiB leaves room for the node path and the rest of the command.
 */
export const MAX_ARGUMENT_BYTES = 96 * 1024;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Encodes a validated envelope; a too-large one is a permanent configuration error, raised before any host is contacted. */
export function encodeArgument(value: Envelope): string {
  const checked = parseEnvelope(value);
  if (!checked.success) {
    throw new ComputeError('configuration', `invalid ${value.operation ?? 'unknown'} operation: ${formatIssues(checked.error)}`, {
      operation: value.operation,
    });
  }
  const encoded = Buffer.from(JSON.stringify(checked.data), 'utf8').toString('base64');
  if (encoded.length > MAX_ARGUMENT_BYTES) {
    throw new ComputeError('configuration', `the ${value.operation} operation encodes to ${encoded.length} bytes, above the ${MAX_ARGUMENT_BYTES}-byte argument limit`, { operation: value.operation });
  }
  return encoded;
}

/** Decodes and validates the helper's argument; anything malformed is a configuration failure. */
export function decodeArgument(encoded: unknown): Envelope {
  if (typeof encoded !== 'string' || encoded.length === 0) {
    throw new ComputeError('configuration', 'missing operation argument');
  }
  if (encoded.length > MAX_ARGUMENT_BYTES) {
    throw new ComputeError('configuration', `operation argument exceeds ${MAX_ARGUMENT_BYTES} bytes`);
  }
  const checked = parseEnvelope(parseBase64Json(encoded));
  if (!checked.success) {
    throw new ComputeError('configuration', `invalid operation: ${formatIssues(checked.error)}`);
  }
  return checked.data;
}

/** Canonical base64 of JSON, as the helper accepts it; anything else is a configuration failure. */
export function parseBase64Json(encoded: string): unknown {
  const bytes = Buffer.from(encoded, 'base64');
  // Security: one value has exactly one accepted spelling (no stray bits in the last character).
  if (!BASE64.test(encoded) || bytes.toString('base64') !== encoded) {
    throw new ComputeError('configuration', 'operation argument is not canonical base64');
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ComputeError('configuration', 'operation argument is not JSON');
  }
}
