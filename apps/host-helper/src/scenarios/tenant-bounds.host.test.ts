// Real-host proof that nothing a compromised gateway sends or builds holds the helper past its bounds:
// a /readyz that trickles, never answers or never ends, and a unit with hundreds of processes and
// hundreds of thousands of descriptors. Each hostile part runs as the Agent's account inside its unit.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentOwner, OperationArgs, OperationName, RuntimeSettings } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, call, installTenantGateway, layoutOf, ok, owner, prepareArgs, shell, type CallOutcome } from '@occ-ssh/test-support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const READINESS_BOUND_MS = 15_000;
/** What activation may add to its readiness bound: the lock, the restart, the record. */
const ACTIVATION_MARGIN_MS = 10_000;
/** The old code's hangs end only at the helper's 170 s deadline; the client gives up well before. */
const CLIENT_TIMEOUT_MS = 90_000;
/** The crowded units' readiness bound. */
const CROWD_READINESS_MS = 60_000;
/** A lock hold is short under this, or under this factor of the sibling's hold of the same operation. */
const LOCK_HOLD_MS = 10_000;
const LOCK_HOLD_FACTOR = 3;
const CHILDREN = 300;
const FDS_PER_CHILD = 2000;

/**
 * A gateway that serves its own /readyz (the fixture is never reached: the attack returns first).
 * What it does with each request is read from `readyz-mode` in its state directory at that moment:
 * `trickle` (a 200 status line, then one header byte every 0.4 s), `silent` (accepts, never answers),
 * `endless` (a complete 200 head, then a body that never ends), anything else a plain 200.
 */
const READYZ_GATEWAY = `
const net = require('node:net');
const fs = require('node:fs');
const argv = process.argv.slice(2);
const port = Number(argv[argv.indexOf('--port') + 1]);
const mode = () => { try { return fs.readFileSync(process.env.OPENCLAW_STATE_DIR + '/readyz-mode', 'utf8').trim(); } catch { return 'ok'; } };
const chunk = '4000\\r\\n' + 'x'.repeat(0x4000) + '\\r\\n';
net.createServer((socket) => {
  socket.on('error', () => {});
  socket.once('data', () => {
    const now = mode();
    if (now === 'silent') return;
    if (now === 'trickle') {
      socket.write('HTTP/1.1 200 OK\\r\\n');
      const timer = setInterval(() => socket.write('X'), 400);
      socket.on('close', () => clearInterval(timer));
      return;
    }
    if (now === 'endless') {
      socket.write('HTTP/1.1 200 OK\\r\\nContent-Type: text/plain\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n');
      const pump = () => { while (!socket.destroyed && socket.write(chunk)); };
      socket.on('drain', pump);
      pump();
      return;
    }
    socket.end('HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: 15\\r\\nConnection: close\\r\\n\\r\\n{"ready":true}\\n');
  });
}).listen(port, '127.0.0.1');
return;
`;

/** Hundreds of processes in the unit, each holding thousands of descriptors (all dups of /dev/null). */
const CROWD = `
const { spawn } = require('node:child_process');
const fd = require('node:fs').openSync('/dev/null', 'r');
const stdio = ['ignore', 'ignore', 'ignore', ...new Array(${FDS_PER_CHILD}).fill(fd)];
for (let i = 0; i < ${CHILDREN}; i += 1) spawn('sleep', ['900'], { stdio }).on('error', () => {});
`;

/** A shell line listing the unit's processes, on a unified, hybrid or legacy cgroup host. */
const UNIT_PROCS = (unit: string) =>
  `cg=$(systemctl show -p ControlGroup --value ${unit}); for r in /sys/fs/cgroup /sys/fs/cgroup/unified /sys/fs/cgroup/systemd; do [ -f $r$cg/cgroup.procs ] && break; done; cat $r$cg/cgroup.procs`;

/** Wraps the remote helper: passes its stdout through and records when each line was written. */
const STAMP = `'use strict';
const { spawn } = require('node:child_process');
const [file, , command, ...args] = process.argv.slice(2);
const stamps = [Date.now()];
const child = spawn(command, args, { stdio: ['inherit', 'pipe', 'inherit'] });
child.stdout.on('data', (chunk) => {
  for (const byte of chunk) if (byte === 10) stamps.push(Date.now());
  process.stdout.write(chunk);
});
child.on('close', (code) => {
  require('node:fs').writeFileSync(file, stamps.join('\\n'));
  process.exitCode = code ?? 1;
});
`;

describe('tenant bounds on a real host', () => {
  let host: TestHost;
  let readyz: Partial<RuntimeSettings>;
  const lockHolds: { operation: string; agent: string; lockHoldMs: number | undefined; totalMs: number }[] = [];

  before(async () => {
    host = await startTestHost({ name: 'htbound' });
    readyz = { openclawPath: await installTenantGateway(host, 'readyz-modes', READYZ_GATEWAY) };
    await host.run(['sh', '-c', 'cat > /opt/occ-tenant/stamp.cjs'], { input: STAMP });
  });
  after(async () => {
    for (const row of lockHolds) process.stderr.write(`# lock hold: ${row.operation.padEnd(18)} ${row.agent.padEnd(40)} lockHoldMs=${String(row.lockHoldMs)} totalMs=${row.totalMs}\n`);
    await host?.down();
  });

  const setMode = (who: AgentOwner, mode: string) => host.run(['tee', `${layoutOf(who).state}/readyz-mode`], { input: mode });
  const readyOf = (inventory: { namespaces: { agents: { agentId: string; ready: boolean }[] }[] }, who: AgentOwner) =>
    inventory.namespaces.flatMap((ns) => ns.agents).find((agent) => agent.agentId === who.agent.id)?.ready;

  /** A call whose lock hold goes into the table printed at the end. */
  async function timed<O extends OperationName>(operation: O, agent: string, args: OperationArgs<O>, runtime: Partial<RuntimeSettings> = {}): Promise<CallOutcome> {
    const outcome = await call(host, operation, args, { runtime, timeoutMs: CLIENT_TIMEOUT_MS });
    lockHolds.push({ operation, agent, lockHoldMs: outcome.line?.timings.lockHoldMs, totalMs: outcome.ms });
    return outcome;
  }

  /** Prepares and activates an Agent with the /readyz gateway answering plainly, then switches its mode. */
  async function served(who: AgentOwner, mode: string): Promise<number> {
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = prepareArgs(who, 1);
    const { port } = await ok(host, 'prepare-revision', rev, { runtime: readyz });
    await ok(host, 'activate-revision', activateArgs(rev), { runtime: readyz });
    await setMode(who, mode);
    return port;
  }

  /** The longest silence between two lines of the helper's stdout (heartbeats come every second). */
  async function longestGap(file: string): Promise<number> {
    const stamps = (await host.run(['cat', file])).trim().split('\n').map(Number);
    return Math.max(...stamps.slice(1).map((at, i) => at - stamps[i]!));
  }

  test('a /readyz that trickles header bytes fails activation not-ready at its readiness bound, not the helper deadline', async () => {
    const who = owner('trickle', 'trickle');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', rev, { runtime: readyz });
    await setMode(who, 'trickle');
    const outcome = await call(host, 'activate-revision', activateArgs(rev, {}, READINESS_BOUND_MS), { runtime: readyz, timeoutMs: CLIENT_TIMEOUT_MS });
    process.stderr.write(
      `# trickling /readyz: activation answered after ${outcome.ms} ms (readiness bound ${READINESS_BOUND_MS} ms): ${JSON.stringify(outcome.line?.ok === false ? outcome.line.error : outcome.line?.ok)}\n`,
    );
    assert.ok(outcome.line, `a result within ${CLIENT_TIMEOUT_MS} ms`);
    assert.ok(!outcome.line.ok && outcome.line.error.code === 'not-ready', JSON.stringify(outcome.line));
    assert.ok(outcome.ms < READINESS_BOUND_MS + ACTIVATION_MARGIN_MS, `took ${outcome.ms} ms against a ${READINESS_BOUND_MS} ms bound`);
  });

  test("a sibling's operations go on while a served Agent's retried activation probes its now trickling /readyz", async () => {
    const who = owner('retry', 'retry');
    const port = await served(who, 'trickle');
    // The same activation again (a lost result retried): it first asks, outside the lock, whether it is still served.
    let retryReturned = 0;
    const retry = call(host, 'activate-revision', activateArgs(prepareArgs(who, 1), {}, READINESS_BOUND_MS), { runtime: readyz, timeoutMs: CLIENT_TIMEOUT_MS }).then(
      (outcome) => ((retryReturned = Date.now()), outcome),
    );
    const probing = async () => (await shell(host, `ss -Htn state established '( dport = :${port} )' | wc -l`)).trim() !== '0';
    for (let i = 0; i < 100 && !(await probing()); i += 1) await sleep(50);
    const sibling = owner('calm', 'calm');
    const started = Date.now();
    const steps = [
      await timed('ensure-namespace', 'sibling', { namespace: sibling.namespace }),
      await timed('prepare-revision', 'sibling', prepareArgs(sibling, 1)),
      await timed('activate-revision', 'sibling', activateArgs(prepareArgs(sibling, 1))),
    ];
    const siblingDone = Date.now();
    const siblingMs = siblingDone - started;
    for (const step of steps) assert.equal(step.line?.ok, true, JSON.stringify(step.line ?? step.stdout.slice(-300)));
    const outcome = await retry;
    lockHolds.push({ operation: 'activate-revision', agent: 'trickler (retry of a served revision)', lockHoldMs: outcome.line?.timings.lockHoldMs, totalMs: outcome.ms });
    process.stderr.write(`# sibling ensure+prepare+activate took ${siblingMs} ms while the trickler's retry ran; the retry answered after ${outcome.ms} ms\n`);
    // Order, not a figure of an idle machine: the sibling was done while the retry still waited out its readiness bound.
    assert.ok(siblingDone < retryReturned, `the sibling's three operations took ${siblingMs} ms and ended ${siblingDone - retryReturned} ms after the retry returned`);
    assert.ok(outcome.line && !outcome.line.ok && outcome.line.error.code === 'not-ready', JSON.stringify(outcome.line));
    assert.ok(outcome.ms < READINESS_BOUND_MS + ACTIVATION_MARGIN_MS, `the retry took ${outcome.ms} ms`);
  });

  test('inventory answers within seconds whatever the gateways send, and reports who is ready', async () => {
    const silent = owner('silent', 'silent');
    const endless = owner('endless', 'endless');
    await served(silent, 'silent');
    await served(endless, 'endless');
    const outcome = await call(host, 'inventory', {}, { timeoutMs: CLIENT_TIMEOUT_MS });
    process.stderr.write(`# inventory with trickling, silent and endless /readyz gateways: ${outcome.ms} ms\n`);
    assert.ok(outcome.line?.ok, JSON.stringify(outcome.line ?? outcome.stdout.slice(-300)));
    const inventory = outcome.line.result as Parameters<typeof readyOf>[0];
    assert.equal(readyOf(inventory, owner('trickle', 'trickle')), false, 'trickling');
    assert.equal(readyOf(inventory, owner('retry', 'retry')), false, 'trickling after it was served');
    assert.equal(readyOf(inventory, silent), false, 'silent');
    // Its head says 200 and the body is never read: ready, and it holds nothing.
    assert.equal(readyOf(inventory, endless), true, 'endless body after a complete 200 head');
    assert.equal(readyOf(inventory, owner('calm', 'calm')), true, 'well-behaved sibling');
    assert.ok(outcome.ms < 8000, `inventory took ${outcome.ms} ms`);
  });

  test('a unit with hundreds of processes and many descriptors keeps the listener check bounded and heartbeats flowing', async () => {
    const crowd = { openclawPath: await installTenantGateway(host, 'crowd', CROWD) };
    // The same crowd, but the listener is held by a child started last, not by the unit's main process.
    const hidden = {
      openclawPath: await installTenantGateway(
        host,
        'hidden',
        `${CROWD}\nspawn(process.execPath, [${JSON.stringify(host.fixtureGatewayPath)}, ...process.argv.slice(2)], { stdio: 'inherit' });\nreturn;\n`,
      ),
    };
    const cases = [
      { who: owner('crowd', 'crowd'), runtime: crowd },
      { who: owner('hidden', 'hidden'), runtime: hidden },
    ];
    const results = [];
    for (const { who, runtime } of cases) {
      await ok(host, 'ensure-namespace', { namespace: who.namespace });
      const rev = prepareArgs(who, 1);
      await ok(host, 'prepare-revision', rev, { runtime });
      const stamps = `/tmp/stamps-${who.agent.id}`;
      const outcome = await call(host, 'activate-revision', activateArgs(rev, {}, CROWD_READINESS_MS), {
        runtime,
        timeoutMs: CLIENT_TIMEOUT_MS,
        wrap: [host.nodePath, '/opt/occ-tenant/stamp.cjs', stamps],
      });
      const gap = await longestGap(stamps);
      const fds = (await shell(host, `${UNIT_PROCS(layoutOf(who).unitName)} | while read p; do ls /proc/$p/fd; done | wc -l`)).trim();
      process.stderr.write(
        `# ${who.agent.id}: ${fds} descriptors in the unit; activation ${outcome.ms} ms, longest silence ${gap} ms: ${JSON.stringify(outcome.line?.ok ? 'ready' : outcome.line?.error)}\n`,
      );
      results.push({ outcome, gap, fds: Number(fds) });
    }
    const [main, child] = results;
    for (const { outcome, gap, fds } of results) {
      assert.ok(fds > CHILDREN * FDS_PER_CHILD, `the crowd is there (${fds} descriptors)`);
      assert.ok(gap < 3000, `the helper fell silent for ${gap} ms`);
      // Within its own readiness bound: unbounded, the listener check ran to the helper's 170 s deadline.
      assert.ok(outcome.ms < CROWD_READINESS_MS + ACTIVATION_MARGIN_MS, `activation took ${outcome.ms} ms`);
    }
    // Found at once in the main process: ready however crowded the unit.
    assert.equal(main!.outcome.line?.ok, true, JSON.stringify(main!.outcome.line));
    // Not found within the bound: not this Agent's listener as far as the helper can tell, and it says why.
    assert.ok(child!.outcome.line && !child!.outcome.line.ok, JSON.stringify(child!.outcome.line));
    assert.equal(child!.outcome.line.error.code, 'not-ready');
    assert.match(child!.outcome.line.error.message, /bound/);
  });

  test('lock holds of every mutating operation stay short with the hostile gateways running', async () => {
    const who = owner('holds', 'holds');
    const rev = prepareArgs(who, 1);
    const outcomes = [
      await timed('ensure-namespace', 'sibling', { namespace: who.namespace }),
      await timed('prepare-revision', 'sibling', rev),
      await timed('activate-revision', 'sibling', activateArgs(rev)),
      await timed('stop-revision', 'sibling', { owner: who, revision: rev.revision }),
      await timed('retire-revision', 'sibling', { owner: who, revision: rev.revision }),
      await timed('delete-namespace', 'sibling', { namespace: who.namespace }),
    ];
    // The hostile Agents' own operations: a retried activation (its probe outside the lock), then stop and delete.
    const trickler = owner('retry', 'retry');
    const mine = [
      await timed('activate-revision', 'trickler', activateArgs(prepareArgs(trickler, 1), {}, READINESS_BOUND_MS), readyz),
      await timed('stop-revision', 'trickler', { owner: trickler, revision: prepareArgs(trickler, 1).revision }, readyz),
      await timed('delete-namespace', 'crowd', { namespace: owner('hidden', 'hidden').namespace }),
      await timed('delete-agent', 'trickler', { owner: trickler }, readyz),
    ];
    for (const outcome of outcomes) assert.equal(outcome.line?.ok, true, JSON.stringify(outcome.line ?? outcome.stdout.slice(-300)));
    assert.equal(mine[0]!.line?.ok === false && mine[0]!.line.error.code, 'not-ready');
    assert.equal(mine[1]!.line?.ok, true);
    assert.equal(mine[2]!.line?.ok, true, JSON.stringify(mine[2]!.line));
    assert.equal(mine[3]!.line?.ok, true, JSON.stringify(mine[3]!.line));
    // Short: 10 s, or 3 times the well-behaved sibling's hold of the same operation on this host now
    // (a loaded machine stretches both); a hostile Agent's work under the lock would stretch only its own.
    const siblingHold = (operation: string | undefined) => outcomes.find((o) => o.line?.operation === operation)?.line?.timings.lockHoldMs ?? 0;
    for (const outcome of [...outcomes, ...mine]) {
      const hold = outcome.line?.timings.lockHoldMs;
      const bound = Math.max(LOCK_HOLD_MS, LOCK_HOLD_FACTOR * siblingHold(outcome.line?.operation));
      assert.ok(hold !== undefined && hold < bound, `${outcome.line?.operation} held the lock ${String(hold)} ms (bound ${bound} ms)`);
    }
  });
});
