// Canonical JSON (sorted keys, no whitespace) and its SHA-256, for configuration hashes.
import { sha256Hex } from './hashes.js';

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
