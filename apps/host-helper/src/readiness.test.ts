// The readiness poll's schedule and its early verdicts (pure parts of readiness.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listenerVerdict, pollDelay, RESTARTS_BEFORE_GIVING_UP, unitVerdict } from './readiness.js';
import { describeExit } from './systemd.js';

describe('pollDelay', () => {
  it('polls every 25 ms for the first 3 s, so readiness is seen within one short interval', () => {
    for (const elapsed of [0, 10, 500, 2999]) assert.equal(pollDelay(elapsed), 25, String(elapsed));
  });

  it('then backs off, never beyond 250 ms', () => {
    const later = [3000, 3400, 4000, 5000, 8000, 60_000].map(pollDelay);
    assert.deepEqual(
      later,
      [...later].sort((a, b) => a - b),
    );
    assert.ok(later[1]! > 25);
    assert.equal(later.at(-1), 250);
    assert.ok(later.every((delay) => delay <= 250));
  });
});

describe('unitVerdict', () => {
  const unit = 'openclaw-enterprise-gateway-abc.service';
  const run = (activeState: string, restarts: number, result = 'success') => ({ activeState, result, restarts, exit: undefined });

  it('gives up at once on a failed unit, naming its result and last exit status', () => {
    assert.equal(unitVerdict(unit, run('failed', 4, 'start-limit-hit'), 0, 'exit status 3'), `${unit} failed (start-limit-hit; last exit: exit status 3)`);
  });

  it('gives up on a unit that keeps restarting, counting only restarts since activation restarted it', () => {
    assert.equal(unitVerdict(unit, run('activating', 7 + RESTARTS_BEFORE_GIVING_UP - 1), 7, 'exit status 3'), undefined);
    assert.equal(
      unitVerdict(unit, run('activating', 7 + RESTARTS_BEFORE_GIVING_UP), 7, 'killed by SIGKILL'),
      `${unit} restarted ${RESTARTS_BEFORE_GIVING_UP} times without answering /readyz (last exit: killed by SIGKILL)`,
    );
  });

  it('keeps waiting for a running unit, and for one that restarted once (a slow start on a busy host)', () => {
    assert.equal(unitVerdict(unit, run('active', 0), 0, undefined), undefined);
    assert.equal(unitVerdict(unit, run('active', 1), 0, 'exit status 1'), undefined);
  });

  it('gives up on a unit stopped under it', () => {
    assert.match(unitVerdict(unit, run('inactive', 0), 0, undefined) ?? '', /stopped while activation waited .*none recorded/);
  });
});

describe('describeExit', () => {
  it("names exits and signals from systemd's ExecMainCode/ExecMainStatus, and nothing while the process runs", () => {
    assert.equal(describeExit(1, 3), 'exit status 3');
    assert.equal(describeExit(2, 9), 'killed by SIGKILL');
    assert.equal(describeExit(3, 6), 'dumped core on SIGABRT');
    assert.equal(describeExit(0, 0), undefined);
  });
});

describe('listenerVerdict', () => {
  const watch = { unit: 'openclaw-enterprise-gateway-abc.service', uid: 998 };
  const listener = (uid: number, address = '127.0.0.1', inode = 41) => ({ address, port: 18800, uid, inode });

  it('accepts only when every listener on the port belongs to the Agent account and, when known, to the unit', () => {
    assert.equal(listenerVerdict([listener(998), listener(998, '[::1]', 42)], 18800, watch), 'ours');
    assert.equal(listenerVerdict([listener(998), listener(998, '[::1]', 42)], 18800, watch, new Set([40, 41, 42])), 'ours');
    assert.equal(listenerVerdict([], 18800, watch), 'none');
  });

  it("names the squatter's UID, whichever address it holds", () => {
    assert.equal(listenerVerdict([listener(1001)], 18800, watch), "127.0.0.1:18800 is held by UID 1001, not by the Agent's account (UID 998): another process squats the Agent's port");
    assert.match(listenerVerdict([listener(998), listener(1001, '[::]')], 18800, watch), /^\[::\]:18800 is held by UID 1001/);
  });

  it('refuses a listener of the Agent account that no process of the unit holds', () => {
    assert.equal(
      listenerVerdict([listener(998), listener(998, '[::1]', 43)], 18800, watch, new Set([41])),
      "[::1]:18800 is held by the Agent's account (UID 998) but by no process of openclaw-enterprise-gateway-abc.service",
    );
  });
});
