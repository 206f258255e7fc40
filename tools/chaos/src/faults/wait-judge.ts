// Judging a later operation that races an activation's unlocked readiness wait (wait-stop, wait-retire,
// wait-delete, wait-newer). The later one must win: the waiting activation answers a retryable
// conflict. Unless the fault could not land: the activation had answered before the later operation
// took the host lock, which on a slow machine can happen however the fault is timed. Such a trial is
// judged on the host's invariants and the later operation, not on the conflict, and is not counted
// as a landed fault. Pure.
import type { ResultLine } from '@occ-ssh/protocol';

/** The shortest readiness wait, and how many times a fresh-client locked call it must outlast. */
const WAIT_FLOOR_MS = 4000;
const WAIT_CALLS = 4;

/**
 * How long the waiting activation's gateway takes to become ready: long enough for the later
 * operation (a fresh client, the helper's start, the lock) to land inside it, as measured on this
 * machine just before: `WAIT_CALLS` times a fresh-client locked call, and at least `WAIT_FLOOR_MS`.
 */
export function waitWindowMs(lockedCallMs: number): number {
  return Math.max(WAIT_FLOOR_MS, Math.ceil(WAIT_CALLS * lockedCallMs));
}

export interface RaceSide {
  line: ResultLine | undefined;
  endedAt: number;
  beats: number[];
}

/**
 * When the later operation had taken the host lock, at the latest: its helper prints a progress line
 * as it checks before the lock and another right after taking it, so the second line's arrival is
 * then (a timer beat coming first makes it earlier, never later). Without a second line, its end.
 */
export function lockedAt(later: RaceSide): number {
  return later.beats[1] ?? later.endedAt;
}

/** The fault landed unless the activation answered ok before the later operation held the lock. */
export function landed(first: RaceSide, later: RaceSide): boolean {
  return !(first.line?.ok === true && first.endedAt < lockedAt(later));
}

const outcome = (line: ResultLine | undefined) => (line ? (line.ok ? 'ok' : line.error.code) : 'nothing');

/** What is wrong with the two answers: the later one must succeed; a landed fault must end the wait in conflict. */
export function raceProblems(kind: string, first: RaceSide, later: RaceSide): string[] {
  const problems: string[] = [];
  if (!later.line?.ok) problems.push(`the later ${kind.replace(/^wait-/, '')} failed: ${later.line ? outcome(later.line) : 'no result line'}`);
  if (landed(first, later) && (first.line?.ok !== false || first.line.error.code !== 'conflict')) problems.push(`the waiting activation answered ${outcome(first.line)}, not conflict`);
  return problems;
}
