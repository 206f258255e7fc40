// SHA-256 in hex, the short stable names derived from exact OCC IDs, and canonical JSON (sorted keys,
// no whitespace) with its SHA-256, for configuration hashes.
import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** First 12 hex characters of SHA-256 of the exact text (UTF-8). */
export function shortHash(text: string): string {
  return sha256Hex(text).slice(0, 12);
}

export const nsHash = (namespaceId: string): string => shortHash(namespaceId);
export const agentHash = (agentId: string): string => shortHash(agentId);
export const revHash = (revisionId: string): string => shortHash(revisionId);

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const entry = (value as Record<string, unknown>)[key];
      if (entry !== undefined) out[key] = sortKeys(entry);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('non-finite number in canonical JSON');
  return value;
}

export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
