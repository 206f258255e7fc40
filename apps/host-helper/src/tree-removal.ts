// Removing trees in a child process, never by recursion inside the helper. An Agent shapes its own
// home/ and state/ as it likes: thousands of levels deep (Node 20's recursive rmSync overflows its
// stack at about 2,500), millions of entries (a synchronous walk would stall the heartbeats, the
// deadline timer and cancellation for its whole length), 000 modes and links pointing anywhere. GNU
// rm walks with fts (no recursion limit, never follows a link, stays on one file system); the helper
// only waits for it, so its timers keep running, and kills it when the session ends.
import { ComputeError } from '@occ-ssh/protocol';
import { asAccountArgv, chmodOpenArgv, findRemoveEntriesArgv, rmTreeArgv, type AccountIds, type Command } from './commands.js';
import { lstatOrNull, ownershipError } from './safe-read.js';
import { PROGRAM_ENV, type HostRunner } from './system.js';

export type { AccountIds } from './commands.js';

/**
 * Runs `command` in its own process group and resolves with its exit code. Rejects with the signal's
 * reason (the session's `cancelled` or `timeout`) once it aborts or at its own bound, after killing the
 * whole group: nothing may go on removing after the helper has answered.
 */
export async function runUntilAborted(runner: HostRunner, command: Command, signal: AbortSignal): Promise<number> {
  return (await runner.runChild(command, { env: PROGRAM_ENV, cwd: '/', output: false, signal, timeoutMs: TREE_CHILD_MS })).code;
}

/** Security: each removal's own bound, as the tree's size is the Agent's; a removal cut here resumes at the retry. */
const TREE_CHILD_MS = 150_000;

/** Removes a tree as root: no recursion in the helper, never through a link, never into another mount. */
export async function removeTreeBounded(runner: HostRunner, path: string, signal: AbortSignal): Promise<void> {
  const code = await runUntilAborted(runner, rmTreeArgv(path), signal);
  if (code !== 0 || lstatOrNull(path) !== null) throw new ComputeError('host-command', `removing ${path} failed (rm exit code ${code}); retry to resume it`, { path });
}

/**
 * Security: empties an Agent's home/ or state/ as the Agent's own account, so the walk of the tree the
 * tenant shaped has only its rights: whatever it planted, it can reach nothing it could not already.
 * The directory itself stays (its parent is root's). Entries the tenant made unremovable by mode
 * (a 000 directory) are opened up as the account, then the removal is run once more. Returns whether
 * the directory is empty; what is left (none of it is the account's to remove) falls to root's pass.
 */
export async function emptyAsAccount(runner: HostRunner, dir: string, account: AccountIds, signal: AbortSignal): Promise<boolean> {
  const stat = lstatOrNull(dir);
  if (stat === null) return true;
  if (!stat.isDirectory()) throw ownershipError(dir, 'expected a directory; refusing to follow or replace it');
  // Only the account's own directory is walked as the account: one it does not own is not its to empty.
  if (stat.uid !== account.uid) return false;
  const removeEntries = () => runUntilAborted(runner, asAccountArgv(account, findRemoveEntriesArgv(dir)), signal);
  if ((await removeEntries()) === 0) return true;
  // chmod -R never follows a link it meets, and as the account it can change only the account's own.
  await runUntilAborted(runner, asAccountArgv(account, chmodOpenArgv(dir)), signal);
  return (await removeEntries()) === 0;
}
