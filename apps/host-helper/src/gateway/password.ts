// The per-Agent managed gateway password: made once when needed, never rotated, never logged.
import { randomBytes } from 'node:crypto';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { ROOT_FILE, readOwnedFile } from '../fs/safe-read.js';

/** Creates gateway-password.env only when missing; an existing file is verified, never rewritten. */
export function ensurePasswordFile(path: string): 'created' | 'kept' {
  if (readOwnedFile(path, ROOT_FILE) !== null) return 'kept';
  const password = randomBytes(32).toString('base64url');
  writeFileAtomic(path, `OPENCLAW_GATEWAY_PASSWORD=${password}\n`, ROOT_FILE);
  return 'created';
}

export function requirePasswordFile(path: string): boolean {
  return readOwnedFile(path, ROOT_FILE) !== null;
}
