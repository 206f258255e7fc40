// Judging a later operation against an activation's unlocked wait: a landed fault must end the wait in
// conflict; a fault that could not land (the activation answered before the later helper held the
// lock, as on the slow machine where wait-delete came after the activation had completed) is not a
// failure; and the wait is sized by a call measured on the machine, never shorter than the floor.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResultLine } from '@occ-ssh/protocol';
import { landed, lockedAt, raceProblems, waitWindowMs, type RaceSide } from './wait-judge.js';

const base = { type: 'result', protocolVersion: 1, helperVersion: '0.1.0', timings: { totalMs: 100 } } as const;
const ok = { ...base, operation: 'activate-revision', ok: true, result: {} } as ResultLine;
const conflict = { ...base, operation: 'activate-revision', ok: false, error: { code: 'conflict', message: 'a later operation won', retryable: true } } as unknown as ResultLine;
const side = (line: ResultLine | undefined, endedAt: number, beats: number[] = []): RaceSide => ({ line, endedAt, beats });

describe('wait faults', () => {
  it('the slow machine: wait-delete sent, but the activation answered ok before the deletion held the lock; not landed, no problem', () => {
    const first = side(ok, 10_400);
    const later = side({ ...ok, operation: 'delete-namespace' } as ResultLine, 14_900, [10_100, 10_650]);
    assert.equal(lockedAt(later), 10_650);
    assert.equal(landed(first, later), false);
    assert.deepEqual(raceProblems('wait-delete', first, later), []);
  });

  it('a landed fault that ends the wait in conflict is right; answering ok after the later one held the lock is wrong', () => {
    const later = side({ ...ok, operation: 'stop-revision' } as ResultLine, 6000, [5000, 5100]);
    assert.equal(landed(side(conflict, 6200), later), true);
    assert.deepEqual(raceProblems('wait-stop', side(conflict, 6200), later), []);
    assert.deepEqual(raceProblems('wait-stop', side(ok, 5200), later), ['the waiting activation answered ok, not conflict']);
    assert.deepEqual(raceProblems('wait-stop', side(undefined, 5200), later), ['the waiting activation answered nothing, not conflict']);
  });

  it('without a second progress line the later call’s end is when it held the lock; its own failure is always a problem', () => {
    const later = side(undefined, 7000, [5000]);
    assert.equal(lockedAt(later), 7000);
    assert.equal(landed(side(ok, 6900), later), false);
    assert.deepEqual(raceProblems('wait-retire', side(ok, 6900), later), ['the later retire failed: no result line']);
  });

  it('the wait outlasts four fresh-client locked calls measured on the machine, and never less than 4 s', () => {
    assert.equal(waitWindowMs(600), 4000);
    assert.equal(waitWindowMs(1000), 4000);
    assert.equal(waitWindowMs(2600), 10_400);
  });
});
