// Removing trees in a child process, never by recursion inside the helper. An Agent shapes its own
// home/ and state/ as it likes: thousands of levels deep (Node 20's recursive rmSync overflows its
// stack at about 2,500), millions of entries (a synchronous walk would stall the heartbeats, the
// deadline timer and cancellation for its whole length), 000 modes and links pointing anywhere. GNU
// rm walks with fts (no recursion limit, never follows a link, stays on one file system); the helper
// only waits for it, so its timers keep running, and kills it when the session ends. An Agent's
// trees are removed only in the removal area, after the host lock is released (lock/removal-area.ts).
import { ComputeError } from '@occ-ssh/protocol';
import { rmTreeArgv, type Command } from '../run/commands.js';
import { lstatOrNull } from './safe-read.js';
import { PROGRAM_ENV, type HostRunner } from '../run/system.js';

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
