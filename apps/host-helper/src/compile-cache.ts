// Keeps the Agent's Node compile cache (NODE_COMPILE_CACHE, in its home/) within a size bound.
import { lstatOrNull } from './safe-read.js';
import { runCommand } from './system.js';

/**
 * OpenClaw keys its cache by its version and install, and Node by its own version inside that, so
 * the cache only grows when the runtime is upgraded (about 40 MB per OpenClaw release). Past this
 * bound the whole cache goes, and the next start is cold once and fills it again.
 */
interface Ids {
  uid: number;
  gid: number;
}

const COMPILE_CACHE_LIMIT_BYTES = 256 * 1024 * 1024;

/**
 * Security: the cache is the Agent's and its gateway may have planted anything in it, so root never
 * walks or deletes it: `du` and `rm` run as the Agent's account, which can only touch what it owns.
 * Returns whether the cache was removed. Best effort: a failure leaves the cache and is not fatal.
 */
export async function boundCompileCache(cache: string, account: Ids): Promise<boolean> {
  try {
    return await bound(cache, account);
  } catch {
    return false; // setpriv, du or rm missing: the cache only grows with runtime upgrades
  }
}

async function bound(cache: string, account: Ids): Promise<boolean> {
  const stat = lstatOrNull(cache);
  if (!stat?.isDirectory() || stat.uid !== account.uid) return false;
  const asAgent = [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', '--'];
  const size = await runCommand('setpriv', [...asAgent, 'du', '--summarize', '--bytes', '--one-file-system', cache]);
  const bytes = Number(/^(\d+)\s/.exec(size.stdout)?.[1] ?? Number.NaN);
  if (size.code !== 0 || !(bytes > COMPILE_CACHE_LIMIT_BYTES)) return false;
  const removal = await runCommand('setpriv', [...asAgent, 'rm', '--recursive', '--force', '--one-file-system', '--', cache]);
  return removal.code === 0;
}
