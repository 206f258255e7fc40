// Real-host proof that a retried activation of a served revision checks its gateway without the host
// lock: the gateway, served and ready, crowds its unit with processes holding almost as many descriptors
// as the check reads and moves its listener to a process started last, so the check takes all it may.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, call, installTenantGateway, layoutOf, ok, owner, prepareArgs, shell } from '@occ-ssh/test-support';

/**
 * Serves /readyz itself. Once `crowd` appears in its state directory (or at start, when it is there),
 * it starts 400 sleepers with 240 descriptors each (96,000 of the check's 100,000), then hands its port
 * to a copy of itself started last, so the listener is found only after all of them.
 */
const CROWDING_GATEWAY = `
const net = require('node:net');
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const argv = process.argv.slice(2);
const port = Number(argv[argv.indexOf('--port') + 1]);
const serve = () => net.createServer((socket) => {
  socket.on('error', () => {});
  socket.once('data', () => socket.end('HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: 15\\r\\nConnection: close\\r\\n\\r\\n{"ready":true}\\n'));
}).listen(port, '127.0.0.1');
if (process.env.OCC_LISTENER) { serve(); return; }
const flag = process.env.OPENCLAW_STATE_DIR + '/crowd';
const crowdThenHandOver = (server) => {
  const fd = fs.openSync('/dev/null', 'r');
  const stdio = ['ignore', 'ignore', 'ignore', ...new Array(240).fill(fd)];
  for (let i = 0; i < 400; i += 1) spawn('sleep', ['900'], { stdio }).on('error', () => {});
  const start = () => spawn(process.execPath, process.argv.slice(1), { stdio: 'inherit', env: { ...process.env, OCC_LISTENER: '1' } });
  if (server) server.close(start); else start();
};
if (fs.existsSync(flag)) crowdThenHandOver(null);
else {
  const server = serve();
  const timer = setInterval(() => { if (fs.existsSync(flag)) { clearInterval(timer); crowdThenHandOver(server); } }, 200);
}
return;
`;

describe('a served revision is checked without the host lock', { timeout: 15 * 60_000 }, () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hserved' });
  });
  after(() => host?.down());

  test("a served Agent's retried activation runs its listener check outside the lock, whatever the gateway makes it cost", async () => {
    const who = owner('crowder', 'crowder');
    const runtime = { openclawPath: await installTenantGateway(host, 'crowder', CROWDING_GATEWAY) };
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', rev, { runtime });
    await ok(host, 'activate-revision', activateArgs(rev), { runtime });
    await host.run(['touch', `${layoutOf(who).state}/crowd`]);
    // Served, /readyz still answers, and the listener now sits in the process started last.
    for (let i = 0; i < 200; i += 1) {
      if ((await shell(host, `pgrep -c -x -u $(stat -c %u ${layoutOf(who).state}) sleep || true`)).trim() === '400') break;
      await sleep(100);
    }
    const retry = await call(host, 'activate-revision', activateArgs(rev), { runtime, timeoutMs: 170_000 });
    assert.ok(retry.line, retry.stdout.slice(-300));
    const { lockHoldMs, totalMs } = retry.line.timings;
    process.stderr.write(
      `[tenant-served] retried activation of the served, crowded gateway: ${totalMs} ms, lock held ${lockHoldMs} ms: ${JSON.stringify(retry.line.ok ? 'ready' : retry.line.error)}\n`,
    );
    // Found, late: still served and ready, so nothing changes and the gateway is not restarted.
    assert.ok(retry.line.ok && (retry.line.result as { readyMs: number }).readyMs === 0, JSON.stringify(retry.line));
    // Security: the check takes the time, and the lock covers only the reads around it.
    assert.ok((lockHoldMs ?? Infinity) < totalMs / 2, `the lock was held ${lockHoldMs} of ${totalMs} ms`);
  });
});
