// Where a client kill goes among an operation's progress lines (the checks before and after the lock,
// then one as each change begins). Drawn uniformly, an operation of two changes is cut between them
// only by the one line that begins the first: a third of its kills at best, less once the kill's trip
// through ssh lets the helper finish. Between two changes is the interruption the kill section is for.
import type { Rng } from '../campaign/rng.js';

/** The share of draws that take a line with a later change after it, when the operation has one. */
export const BETWEEN_CHANGES_SHARE = 0.75;

/** The first line that begins a change: the two checks come before it. */
const FIRST_CHANGE_LINE = 3;

/**
 * The line after which the kill is sent, from the second on (the first is the check before the lock,
 * where a kill only meets an operation that has not begun). Most draws take a line that begins a
 * change with another one after it; the rest take any line, so kills before the first change and
 * during the last still happen. An operation with one change has no such line and draws from all.
 */
export function killLine(rng: Rng, lines: number): number {
  const lastBetween = lines - 1;
  if (lastBetween >= FIRST_CHANGE_LINE && rng.chance(BETWEEN_CHANGES_SHARE)) return rng.int(FIRST_CHANGE_LINE, lastBetween);
  return rng.int(Math.min(2, lines), lines);
}

/** The line begins a change with a later one after it: a kill sent after it is aimed between two changes. */
export const aimsBetweenChanges = (line: number, lines: number): boolean => line >= FIRST_CHANGE_LINE && line <= lines - 1;
