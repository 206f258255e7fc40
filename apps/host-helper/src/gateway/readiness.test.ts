// The readiness poll's schedule and its early verdicts (pure parts of readiness.ts).
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { listenerVerdict, pollDelay, probeReady, restartStage, RESTARTS_BEFORE_GIVING_UP, unitVerdict } from './readiness.js';
import { describeExit } from '../systemd/systemd.js';

/** A loopback server that answers each connection's first bytes with `answer`; resolves once listening. */
async function serve(answer: (socket: Socket) => void): Promise<{ server: Server; port: number; closed: Promise<void> }> {
  let onClose: () => void = () => {};
  const closed = new Promise<void>((resolve) => (onClose = resolve));
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.on('close', () => onClose());
    socket.once('data', () => answer(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, closed };
}

describe('probeReady', () => {
  it('gives up at its total deadline on a head trickled one byte at a time (an idle timeout never would)', async () => {
    const timers: NodeJS.Timeout[] = [];
    const { server, port, closed } = await serve((socket) => {
      socket.write('HTTP/1.1 200 OK\r\n');
      timers.push(setInterval(() => socket.write('X'), 100));
    });
    const started = Date.now();
    assert.equal(await probeReady(port, 600), false);
    const took = Date.now() - started;
    assert.ok(took >= 550 && took < 3000, `took ${took} ms for a 600 ms deadline`);
    await closed;
    timers.forEach(clearInterval);
    server.close();
  });

  it('answers on the head of a 200 and never reads the endless body behind it', async () => {
    let written = 0;
    const { server, port, closed } = await serve((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      const pump = () => {
        while (!socket.destroyed && socket.write('4000\r\n' + 'x'.repeat(0x4000) + '\r\n')) written += 0x4000;
      };
      socket.on('drain', pump);
      pump();
    });
    assert.equal(await probeReady(port, 5000), true);
    await closed;
    assert.ok(written < 64 * 1024 * 1024, `${written} bytes of body were drained`);
    server.close();
  });

  it('is false for a connection that is accepted and never answered, and for a non-200 head', async () => {
    const silent = await serve(() => {});
    assert.equal(await probeReady(silent.port, 300), false);
    await silent.closed;
    silent.server.close();
    const busy = await serve((socket) => socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n'));
    assert.equal(await probeReady(busy.port, 2000), false);
    busy.server.close();
  });
});

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
  const run = (activeState: string, restarts: number, result = 'success') => ({ activeState, result, restarts, exit: undefined, invocation: 'b1', jobPending: false });

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

describe('restartStage', () => {
  const view = (activeState: string, invocation: string, jobPending: boolean) => ({ activeState, invocation, jobPending });

  it('waits while the queued restart runs: the old run stopping (even a failed stop), or the job not begun', () => {
    assert.equal(restartStage(view('deactivating', 'old', true), 'old'), 'pending');
    assert.equal(restartStage(view('active', 'old', true), 'old'), 'pending');
    assert.equal(restartStage(view('failed', 'old', true), 'old'), 'pending');
    assert.equal(restartStage(view('inactive', '', true), ''), 'pending');
  });

  it('judges a new run, whatever its state and jobs', () => {
    assert.equal(restartStage(view('activating', 'new', true), 'old'), 'running');
    assert.equal(restartStage(view('failed', 'new', false), 'old'), 'running');
    assert.equal(restartStage(view('active', 'first', false), ''), 'running');
  });

  it('reports a restart that ended without a new run and left the unit failed (the start rate limit) as refused', () => {
    assert.equal(restartStage(view('failed', 'old', false), 'old'), 'refused');
  });

  it('judges the old run once its job is gone without a failure: stopped by a later operation, it is not coming back', () => {
    assert.equal(restartStage(view('inactive', 'old', false), 'old'), 'running');
  });

  it('judges every view where nothing was restarted', () => {
    assert.equal(restartStage(view('failed', 'old', true), undefined), 'running');
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
