// Keeps the Agent's Node compile cache (NODE_COMPILE_CACHE, in its home/) within a size bound.
import { execFile } from 'node:child_process';
import { lstatOrNull } from './safe-read.js';
import { PROGRAM_ENV } from './system.js';

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
 * Security: the Agent controls the tree, so each command has a hard time bound. A real cache is a
 * few thousand files that `du` measures in well under a second; one it cannot measure in this time
 * is far past any real cache and goes too. A removal cut at its bound resumes at the next activation.
 */
const MEASURE_MS = 5000;
const REMOVE_MS = 20_000;

/**
 * Security: the cache is the Agent's and its gateway may have planted anything in it, so root never
 * walks or deletes it: `du` and `rm` run as the Agent's account, which can only touch what it owns,
 * without crossing into another filesystem, killed at their bound or when `signal` (the session's) aborts.
 * Returns whether the cache was removed. Best effort: a failure leaves the cache and is not fatal.
 */
export async function boundCompileCache(cache: string, account: Ids, signal: AbortSignal): Promise<boolean> {
  const stat = lstatOrNull(cache);
  if (!stat?.isDirectory() || stat.uid !== account.uid) return false;
  const asAgent = [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', '--'];
  const size = await asBounded([...asAgent, 'du', '--summarize', '--bytes', '--one-file-system', cache], MEASURE_MS, signal);
  if (size === 'failed' || signal.aborted) return false;
  const bytes = size === 'timeout' ? Number.POSITIVE_INFINITY : Number(/^(\d+)\s/.exec(size)?.[1] ?? Number.NaN);
  if (!(bytes > COMPILE_CACHE_LIMIT_BYTES)) return false;
  const removal = await asBounded([...asAgent, 'rm', '--recursive', '--force', '--one-file-system', '--', cache], REMOVE_MS, signal);
  return removal !== 'failed' && removal !== 'timeout';
}

/** setpriv with these arguments: its output on success, else how it ended. Never throws. */
function asBounded(args: readonly string[], timeoutMs: number, signal: AbortSignal): Promise<string | 'failed' | 'timeout'> {
  return new Promise((resolve) => {
    execFile('setpriv', args, { timeout: timeoutMs, killSignal: 'SIGKILL', signal, maxBuffer: 64 * 1024, env: PROGRAM_ENV, encoding: 'utf8' }, (error, stdout) => {
      if (!error) resolve(stdout);
      else resolve(error.killed && !signal.aborted ? 'timeout' : 'failed');
    });
  });
}
