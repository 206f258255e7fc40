// Short, stable names derived from exact OCC IDs.
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
