// The pod's part of systemd's messages: from the start that began it, through automatic restarts only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podHistory, podUid, systemdTime, type UnitMessage } from './runtime-pod.js';

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000000Z`;
const m = (second: number, kind: UnitMessage['kind'], invocation: string, code: string | null = null, status: number | null = null): UnitMessage => ({
  time: at(second),
  kind,
  code,
  status,
  invocation,
});
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);

describe('podHistory', () => {
  // An activation's restart (A stopped, B started, no restart scheduled), then a crash and systemd's restart (C).
  const messages = [
    m(1, 'started', A),
    m(2, 'stopped', A),
    m(3, 'started', B),
    m(4, 'exited', B, 'killed', 9),
    m(5, 'failed', B, 'signal'),
    m(6, 'restart-scheduled', B, null, 1),
    m(7, 'stopped', B),
    m(8, 'started', C),
  ];

  it("after an automatic restart, the previous instance is the crashed one and the events start at the activation's start", () => {
    const history = podHistory(messages, C);
    assert.equal(history.previous, B);
    assert.deepEqual(
      history.events.map((event) => event.kind),
      ['started', 'exited', 'failed', 'restart-scheduled', 'stopped', 'started'],
    );
    assert.deepEqual(history.events[1], { time: at(4), kind: 'exited', code: 'killed', status: 9 });
  });

  it("a start by an activation (no restart scheduled before it) has no previous instance in its pod: the earlier one is another pod's", () => {
    const history = podHistory(messages.slice(0, 3), B);
    assert.equal(history.previous, null);
    assert.deepEqual(
      history.events.map((event) => event.kind),
      ['started'],
    );
  });

  it('an invocation the messages do not hold gives no previous instance', () => {
    assert.equal(podHistory(messages, 'd'.repeat(32)).previous, null);
  });
});

describe('pod IDs and times', () => {
  it('the pod ID is stable for one served time and changes with the next activation or revision', () => {
    assert.equal(podUid('2026-01-01T00:00:00.000Z', 'rev-1'), podUid('2026-01-01T00:00:00.000Z', 'rev-1'));
    assert.notEqual(podUid('2026-01-01T00:00:00.000Z', 'rev-1'), podUid('2026-01-01T00:05:00.000Z', 'rev-1'));
    assert.notEqual(podUid(null, 'rev-1'), podUid(null, 'rev-2'));
    assert.match(podUid(null, 'rev-1'), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it("systemd's UTC timestamps become ISO 8601; anything else is null", () => {
    assert.equal(systemdTime('Fri 2026-12-04 00:30:40 UTC'), '2026-12-04T00:30:40.000Z');
    assert.equal(systemdTime(''), null);
    assert.equal(systemdTime('Fri 2026-12-04 01:30:40 CET'), null);
  });
});
