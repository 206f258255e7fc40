// The per-Agent private Unix account name.
import { sha256Hex } from './hashes.js';

export const ACCOUNT_PREFIX_LENGTH = 19;
const ACCOUNT_PREFIX = /^[a-z_][a-z0-9_-]*$/;

/**
 * First 19 characters of runtime.user, `-`, first 12 hex of SHA-256 of `<namespaceId>:<agentId>`:
 * at most 32 characters, inside useradd's limit, unique per Agent.
 */
export function accountName(runtimeUser: string, namespaceId: string, agentId: string): string {
  if (!ACCOUNT_PREFIX.test(runtimeUser) || runtimeUser === 'root') {
    throw new RangeError(`runtime.user ${JSON.stringify(runtimeUser)} is not a lower-case account name prefix`);
  }
  return `${runtimeUser.slice(0, ACCOUNT_PREFIX_LENGTH)}-${sha256Hex(`${namespaceId}:${agentId}`).slice(0, 12)}`;
}
