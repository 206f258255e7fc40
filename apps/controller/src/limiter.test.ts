// HostLimiter: a per-host and a controller-wide bound on concurrent operations, first come first served.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ComputeError } from '@occ-ssh/protocol';
import { HostLimiter, Semaphore, sessionsPerHost, viewSlotsFor, viewTotalFor } from './limiter.js';
import { deferred, settle } from '../test/fakes.js';

/** Tasks that record start/end and finish only when released, tracking the peak concurrency per host. */
function harness() {
  const started: string[] = [];
  const running = new Map<string, number>();
  const peak = new Map<string, number>();
  const gates = new Map<string, ReturnType<typeof deferred<void>>>();
  const task = (host: string, name: string) => async () => {
    started.push(name);
    const now = (running.get(host) ?? 0) + 1;
    running.set(host, now);
    peak.set(host, Math.max(peak.get(host) ?? 0, now));
    const gate = deferred();
    gates.set(name, gate);
    try {
      await gate.promise;
      return name;
    } finally {
      running.set(host, (running.get(host) ?? 1) - 1);
    }
  };
  const release = async (name: string, error?: Error) => {
    const gate = gates.get(name);
    assert.ok(gate, `${name} has not started`);
    if (error) gate.reject(error);
    else gate.resolve();
    await settle();
  };
  return { started, running, peak, task, release };
}

describe('HostLimiter', () => {
  it('never runs more than N operations at once on one host', async () => {
    const limiter = new HostLimiter(2);
    const h = harness();
    const names = ['t1', 't2', 't3', 't4', 't5', 't6'];
    const results = names.map((name) => limiter.run('stable', h.task('stable', name)));
    await settle();
    assert.deepEqual(h.started, ['t1', 't2']);
    await h.release('t2');
    assert.deepEqual(h.started, ['t1', 't2', 't3']);
    await h.release('t1');
    await h.release('t3');
    await h.release('t4');
    await h.release('t5');
    await h.release('t6');
    assert.deepEqual(await Promise.all(results), names);
    assert.equal(h.peak.get('stable'), 2);
    assert.equal(h.running.get('stable'), 0);
  });

  it('starts waiting operations in FIFO order', async () => {
    const limiter = new HostLimiter(1);
    const h = harness();
    const names = ['a', 'b', 'c', 'd', 'e'];
    const results = names.map((name) => limiter.run('stable', h.task('stable', name)));
    for (const name of names) {
      await settle();
      await h.release(name);
    }
    await Promise.all(results);
    assert.deepEqual(h.started, names);
    assert.equal(h.peak.get('stable'), 1);
  });

  it('keeps different hosts independent', async () => {
    const limiter = new HostLimiter(1);
    const h = harness();
    const a1 = limiter.run('alpha', h.task('alpha', 'a1'));
    const a2 = limiter.run('alpha', h.task('alpha', 'a2'));
    const b1 = limiter.run('beta', h.task('beta', 'b1'));
    await settle();
    assert.deepEqual(h.started, ['a1', 'b1'], 'beta is not held up by a full alpha');
    await h.release('b1');
    assert.deepEqual(h.started, ['a1', 'b1'], 'a free beta slot does not admit alpha work');
    await h.release('a1');
    await h.release('a2');
    assert.deepEqual(await Promise.all([a1, a2, b1]), ['a1', 'a2', 'b1']);
  });

  it('frees the slot when an operation fails, and passes the failure on', async () => {
    const limiter = new HostLimiter(1);
    const h = harness();
    const first = limiter.run('stable', h.task('stable', 'x'));
    const second = limiter.run('stable', h.task('stable', 'y'));
    const failed = assert.rejects(first, /boom/);
    await settle();
    await h.release('x', new Error('boom'));
    await failed;
    assert.deepEqual(h.started, ['x', 'y']);
    await h.release('y');
    assert.equal(await second, 'y');
    // The host is fully free again: N new operations start at once.
    const again = limiter.run('stable', h.task('stable', 'z'));
    await settle();
    assert.equal(h.started.at(-1), 'z');
    await h.release('z');
    await again;
  });

  it('does not let a newcomer overtake a waiting operation when a slot is handed over', async () => {
    const limiter = new HostLimiter(1);
    const h = harness();
    const first = limiter.run('stable', h.task('stable', 'first'));
    const waiting = limiter.run('stable', h.task('stable', 'waiting'));
    await settle();
    // Release `first` and submit a newcomer in the same turn.
    void h.release('first');
    const newcomer = limiter.run('stable', h.task('stable', 'newcomer'));
    await settle();
    assert.deepEqual(h.started, ['first', 'waiting']);
    assert.equal(h.peak.get('stable'), 1);
    await h.release('waiting');
    await h.release('newcomer');
    await Promise.all([first, waiting, newcomer]);
    assert.deepEqual(h.started, ['first', 'waiting', 'newcomer']);
  });
});

describe("HostLimiter: the runtime reads' own slots", () => {
  it('starts a runtime read at once while every operation slot is taken, and bounds the reads by their own two', async () => {
    const limiter = new HostLimiter(2);
    const h = harness();
    const operations = ['op1', 'op2', 'op3'].map((name) => limiter.run('stable', h.task('stable', name)));
    const views = ['v1', 'v2', 'v3'].map((name) => limiter.run('stable', h.task('stable view', name), 'view'));
    await settle();
    assert.deepEqual(h.started, ['op1', 'op2', 'v1', 'v2']);
    await h.release('v1');
    assert.deepEqual(h.started, ['op1', 'op2', 'v1', 'v2', 'v3'], 'a freed read slot admits the next read, not an operation');
    for (const name of ['op1', 'op2', 'op3', 'v2', 'v3']) await h.release(name);
    await Promise.all([...operations, ...views]);
    assert.deepEqual([h.peak.get('stable'), h.peak.get('stable view')], [2, 2]);
  });

  it("keeps every host within sshd's 10 sessions per connection: with no room left, reads share the operations' slots", async () => {
    assert.deepEqual([1, 4, 8, 9, 10].map(viewSlotsFor), [2, 2, 2, 1, 0]);
    assert.deepEqual([1, 4, 8, 9, 10].map(sessionsPerHost), [3, 6, 10, 10, 10]);
    const limiter = new HostLimiter(10);
    assert.equal(limiter.semaphoreFor('stable', 'view'), limiter.semaphoreFor('stable'));
  });
});

describe('HostLimiter: the controller-wide bound', () => {
  it('never runs more than the total across hosts, and a host with a deep queue holds at most its own share of the waiters', async () => {
    const limiter = new HostLimiter(2, 3);
    const h = harness();
    // alpha asks for six before beta and gamma ask for one each.
    const alpha = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((name) => limiter.run('alpha', h.task('all', name)));
    const others = [limiter.run('beta', h.task('all', 'b1')), limiter.run('gamma', h.task('all', 'g1'))];
    await settle();
    assert.deepEqual(h.started, ['a1', 'a2', 'b1']);
    // The freed slot goes to gamma, which asked before alpha's third could queue for the total.
    await h.release('a1');
    assert.deepEqual(h.started, ['a1', 'a2', 'b1', 'g1']);
    await h.release('b1');
    assert.deepEqual(h.started.at(-1), 'a3');
    for (const name of ['a2', 'g1', 'a3', 'a4', 'a5', 'a6']) await h.release(name);
    await Promise.all([...alpha, ...others]);
    assert.equal(h.peak.get('all'), 3);
  });

  it("runtime reads have a quarter of the total, at least two, beside the operations'", async () => {
    assert.deepEqual([1, 8, 9, 64].map(viewTotalFor), [2, 2, 3, 16]);
    const limiter = new HostLimiter(4, 1);
    const h = harness();
    const operations = ['op1', 'op2'].map((name, i) => limiter.run(`host${i}`, h.task('operations', name)));
    const views = ['v1', 'v2', 'v3'].map((name, i) => limiter.run(`host${i}`, h.task('views', name), 'view'));
    await settle();
    assert.deepEqual(h.started, ['op1', 'v1', 'v2']);
    for (const name of ['v1', 'v2', 'v3', 'op1', 'op2']) await h.release(name);
    await Promise.all([...operations, ...views]);
    assert.deepEqual([h.peak.get('operations'), h.peak.get('views')], [1, 2]);
  });

  it('a cancelled call stops waiting, holds nothing, and the next waiter gets the slot', async () => {
    const limiter = new HostLimiter(4, 1);
    const h = harness();
    const first = limiter.run('alpha', h.task('all', 'first'));
    const controller = new AbortController();
    const cancelled = limiter.take('beta', 'operation', controller.signal);
    const next = limiter.run('gamma', h.task('all', 'next'));
    await settle();
    controller.abort();
    await assert.rejects(cancelled, (error: ComputeError) => error.code === 'cancelled' && /waiting for a slot/.test(error.message));
    await h.release('first');
    assert.deepEqual(h.started, ['first', 'next']);
    await h.release('next');
    await Promise.all([first, next]);
    // beta's own slot was given back: its next call starts at once.
    const held = await limiter.take('beta');
    // A call whose signal is already aborted never queues behind it.
    await assert.rejects(limiter.take('delta', 'operation', AbortSignal.abort()), /cancelled while waiting/);
    held();
    (await limiter.take('delta'))();
  });
});

describe('Semaphore', () => {
  it('skips a waiter that withdrew, and a cancelled grant frees its slot', async () => {
    const semaphore = new Semaphore(1);
    const first = semaphore.acquire();
    const withdrawn = semaphore.acquire();
    const next = semaphore.acquire();
    assert.deepEqual([first.immediate, withdrawn.immediate, next.immediate], [true, false, false]);
    withdrawn.cancel();
    let nextHeld = false;
    void next.granted.then(() => (nextHeld = true));
    first.release();
    first.release();
    await settle();
    assert.equal(nextHeld, true);
    // The slot went to `next` alone: a newcomer still waits until `next` cancels (returns) it.
    const newcomer = semaphore.acquire();
    assert.equal(newcomer.immediate, false);
    next.cancel();
    await newcomer.granted;
    newcomer.release();
    assert.equal(semaphore.acquire().immediate, true);
  });
});
