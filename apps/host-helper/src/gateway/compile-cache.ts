// Keeps the Agent's Node compile cache (NODE_COMPILE_CACHE, in its home/) within a size bound.
import { beforeChange } from '../run/change-guard.js';
import { asAccountArgv, duBytesArgv, rmTreeArgv, type Command } from '../run/commands.js';
import { lstatOrNull } from '../fs/safe-read.js';
import { CommandNotRun, PROGRAM_ENV, type HostRunner } from '../run/system.js';

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
 * without crossing into another filesystem, killed with their group at their bound, once found stopped,
 * or when `signal` (the session's) aborts.
 * Returns whether the cache was removed. Best effort: a failure leaves the cache and is not fatal.
 */
export async function boundCompileCache(runner: HostRunner, cache: string, account: Ids, signal: AbortSignal): Promise<boolean> {
  const stat = lstatOrNull(cache);
  if (!stat?.isDirectory() || stat.uid !== account.uid) return false;
  const size = await asBounded(runner, asAccountArgv(account, duBytesArgv(cache)), MEASURE_MS, signal);
  if (size === 'failed' || signal.aborted) return false;
  const bytes = size === 'timeout' ? Number.POSITIVE_INFINITY : Number(/^(\d+)\s/.exec(size)?.[1] ?? Number.NaN);
  if (!(bytes > COMPILE_CACHE_LIMIT_BYTES)) return false;
  // The one change here, checked like every other: a closed session stops before it.
  beforeChange();
  const removal = await asBounded(runner, asAccountArgv(account, rmTreeArgv(cache)), REMOVE_MS, signal);
  return removal !== 'failed' && removal !== 'timeout';
}

/**
 * The command's output on success, else how it ended. Never throws. A child the account stopped is
 * `failed`, not `timeout`: it says nothing of the cache's size, so nothing is removed for it.
 */
function asBounded(runner: HostRunner, command: Command, timeoutMs: number, signal: AbortSignal): Promise<string | 'failed' | 'timeout'> {
  return runner.runChild(command, { timeoutMs, signal, output: true, env: PROGRAM_ENV, cwd: '/' }).then(
    (result) => (result.code === 0 ? result.stdout : 'failed'),
    (error: unknown) => (error instanceof CommandNotRun && error.killed && !error.stopped && !signal.aborted ? 'timeout' : 'failed'),
  );
}
