// Real-host proof that a gateway's logging is bounded in bytes: a compromised gateway, as the Agent's
// account inside its unit, sends native journal entries carrying a sealed memfd of 64 MiB (what
// sd_journal_sendv does with an entry too large for a datagram) and floods its stdout with lines
// longer than journald's LineMax=. The native and syslog sockets are not there for it, so nothing of
// the memfd reaches the namespace's journald; its stdout is cut into entries of at most LineMax=
// bytes under the unit's burst. Meanwhile a sibling's /readyz latency and a witness's log lines,
// written through the same journald, are measured against the idle host (p99 printed).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { accountOf, activateArgs, installTenantGateway, layoutOf, ok, owner, prepareArgs } from '@occ-ssh/test-support';

const FLOOD_SECONDS = 20;
/** The LineMax= docs/operations.md has operators set in the namespace's journald@openclaw-enterprise.conf (journald's default is 48K). */
const LINE_MAX = 4096;
/** The unit's LogRateLimitBurst= per 30 s, for each of journald's five priority groups, scaled by free space at most x6. */
const ENTRIES_PER_INTERVAL = 1000 * 5 * 6;

/** Started by the flooder's gateway, waiting for the test's go, so the idle figures come first. */
const FLOOD = `
const { randomBytes } = require('node:crypto');
const { spawn } = require('node:child_process');
const { existsSync, writeFileSync } = require('node:fs');
const state = process.env.OPENCLAW_STATE_DIR;
const report = { native: { tried: 0, accepted: 0 }, stdoutBytes: 0 };
// 48 MiB of random bytes as 64 MiB of text: over any datagram, so libsystemd sends it as a sealed memfd.
const memfd = 'MESSAGE=memfd ' + randomBytes(48 << 20).toString('base64') + '\\n';
const long = () => randomBytes(48 * 1024).toString('base64') + '\\n';
function native(end) {
  if (Date.now() > end) return;
  const child = spawn('/usr/bin/logger', ['--journald'], { stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.on('error', () => {});
  child.stdin.end(memfd);
  child.on('close', (code) => {
    report.native.tried++;
    if (code === 0) report.native.accepted++;
    setTimeout(() => native(end), 50);
  });
}
function stdout(end) {
  if (Date.now() > end) return;
  let more = true;
  for (let i = 0; i < 50 && more; i++) {
    const line = '<' + (i % 8) + '>' + long();
    report.stdoutBytes += line.length;
    more = process.stdout.write(line);
  }
  if (more) setImmediate(() => stdout(end));
  else process.stdout.once('drain', () => stdout(end));
}
const wait = setInterval(() => {
  if (!existsSync(state + '/flood.go')) return;
  clearInterval(wait);
  const end = Date.now() + ${FLOOD_SECONDS * 1000};
  native(end);
  native(end);
  stdout(end);
  setTimeout(() => writeFileSync(state + '/flood.done', JSON.stringify(report)), ${FLOOD_SECONDS * 1000} + 5000);
}, 100);
`;

const ATTACK = `
const { existsSync, writeFileSync } = require('node:fs');
const started = process.env.OPENCLAW_STATE_DIR + '/flood.started';
if (!existsSync(started)) {
  writeFileSync(started, 'yes\\n');
  require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(FLOOD)}], { stdio: ['ignore', 'inherit', 'inherit'] });
}
`;

/** Run on the host as root, outside every unit: /readyz of the sibling every 50 ms for the given time. */
const READYZ = `
const http = require('node:http');
const [port, seconds] = process.argv.slice(1).map(Number);
const end = Date.now() + seconds * 1000;
const times = [];
let errors = 0;
function next() {
  if (Date.now() > end) {
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
    console.log(JSON.stringify({ count: times.length, errors, p50: at(0.5), p99: at(0.99), max: times[times.length - 1] }));
    return;
  }
  const start = process.hrtime.bigint();
  const done = (ok) => {
    if (ok) times.push(Number(process.hrtime.bigint() - start) / 1e6);
    else errors++;
    setTimeout(next, 50);
  };
  http.get({ host: '127.0.0.1', port, path: '/readyz', timeout: 30000 }, (res) => { res.resume(); res.on('end', () => done(res.statusCode === 200)); }).on('error', () => done(false));
}
next();
`;

/** A witness in the gateways' namespace: a line every 100 ms with the time it was written. */
const WITNESS = `let n = 0; setInterval(() => console.log('witness ' + n++ + ' ' + Date.now()), 100);`;

const NAMESPACE_CONF = `[Journal]\nSystemMaxUse=512M\nSystemMaxFileSize=128M\nLineMax=${LINE_MAX}\n`;

interface Latency {
  count: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

describe('a compromised gateway cannot flood the namespace journal with bytes', () => {
  let host: TestHost;
  const flooder = owner('bytes');
  const sibling = owner('quiet');

  before(async () => {
    host = await startTestHost({ name: 'hbytes' });
    await host.run(['sh', '-c', `cat > /etc/systemd/journald@${GATEWAY_LOG_NAMESPACE}.conf`], { input: NAMESPACE_CONF });
  });
  after(() => host?.down());

  const readyz = async (port: number, seconds: number) => JSON.parse(await host.run([host.nodePath, '-e', READYZ, String(port), String(seconds)])) as Latency;

  /** The witness's lines between two times: how many, and p99 of the delay from writing to journald's receive time. */
  const witness = async (from: number, to: number) => {
    await host.run(['journalctl', `--namespace=${GATEWAY_LOG_NAMESPACE}`, '--sync']);
    const text = await host.run(['journalctl', `--namespace=${GATEWAY_LOG_NAMESPACE}`, '-u', 'occ-witness.service', '-o', 'json', '--output-fields=MESSAGE,__REALTIME_TIMESTAMP']);
    const delays = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { MESSAGE?: string; __REALTIME_TIMESTAMP: string })
      .flatMap((entry) => {
        const written = Number(/^witness \d+ (\d+)$/.exec(entry.MESSAGE ?? '')?.[1]);
        return written >= from && written <= to ? [Number(entry.__REALTIME_TIMESTAMP) / 1000 - written] : [];
      })
      .sort((a, b) => a - b);
    return { lines: delays.length, p99: delays[Math.min(delays.length - 1, Math.floor(0.99 * delays.length))] ?? NaN };
  };

  test('no native entry or memfd of the flooder reaches the journal, its stdout entries stay within LineMax= and the burst, and the sibling keeps answering', async () => {
    for (const who of [flooder, sibling]) await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const quiet = prepareArgs(sibling, 1);
    await ok(host, 'prepare-revision', quiet);
    const { port } = await ok(host, 'activate-revision', activateArgs(quiet));
    await host.run(['systemd-run', '--unit=occ-witness', `--property=LogNamespace=${GATEWAY_LOG_NAMESPACE}`, '--', host.nodePath, '-e', WITNESS]);
    const openclawPath = await installTenantGateway(host, 'bytes', ATTACK);
    const loud = prepareArgs(flooder, 1);
    await ok(host, 'prepare-revision', loud, { runtime: { openclawPath } });
    await ok(host, 'activate-revision', activateArgs(loud), { runtime: { openclawPath } });
    const state = layoutOf(flooder).state;

    const idleFrom = Date.now();
    const idle = await readyz(port, FLOOD_SECONDS);
    const idleWitness = await witness(idleFrom, Date.now());
    await host.run(['touch', `${state}/flood.go`]);
    const floodFrom = Date.now();
    const flood = await readyz(port, FLOOD_SECONDS);
    const floodWitness = await witness(floodFrom, floodFrom + FLOOD_SECONDS * 1000);
    let done = '';
    for (let tries = 0; done === '' && tries < 120; tries++) {
      done = await host.run(['sh', '-c', 'cat "$1" 2>/dev/null || true', 'sh', `${state}/flood.done`]);
      if (done === '') await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const report = JSON.parse(done) as { native: { tried: number; accepted: number }; stdoutBytes: number };

    await host.run(['journalctl', `--namespace=${GATEWAY_LOG_NAMESPACE}`, '--sync']);
    const uid = (await host.run(['id', '-u', accountOf(flooder)])).trim();
    // Per transport: entries, bytes of MESSAGE and the largest one, summed on the host.
    const tally = `let t = {}; require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
      const e = JSON.parse(line); const size = e.MESSAGE == null ? 0 : Array.isArray(e.MESSAGE) ? e.MESSAGE.length : Buffer.byteLength(e.MESSAGE);
      const s = (t[e._TRANSPORT] ??= { entries: 0, bytes: 0, largest: 0 }); s.entries++; s.bytes += size; s.largest = Math.max(s.largest, size);
    }).on('close', () => console.log(JSON.stringify(t)));`;
    const kept = JSON.parse(
      await host.run(['sh', '-c', `journalctl --namespace=${GATEWAY_LOG_NAMESPACE} _UID=${uid} --all -o json --output-fields=MESSAGE,_TRANSPORT | ${host.nodePath} -e "$1"`, 'sh', tally]),
    ) as Record<string, { entries: number; bytes: number; largest: number }>;
    process.stderr.write(
      `# flood ${FLOOD_SECONDS} s: native memfd sends ${JSON.stringify(report.native)}, ${(report.stdoutBytes / 2 ** 20).toFixed(0)} MiB to stdout; kept in the namespace ${JSON.stringify(kept)}\n` +
        `# sibling /readyz idle ${JSON.stringify(idle)}; during the flood ${JSON.stringify(flood)}\n` +
        `# witness lines idle ${JSON.stringify(idleWitness)}; during the flood ${JSON.stringify(floodWitness)} (delay from write to journald, ms)\n`,
    );

    // The flood ran: it tried the native socket again and again and wrote far more to stdout than is kept.
    assert.ok(report.native.tried >= 2, JSON.stringify(report));
    assert.ok(report.stdoutBytes > 100 * 2 ** 20, JSON.stringify(report));
    // Security: nothing by the native protocol or syslog, memfd or not; stdout only, no entry past LineMax=, no more entries than the burst allows.
    assert.deepEqual(Object.keys(kept), ['stdout'], JSON.stringify(kept));
    assert.ok(kept['stdout']!.largest <= LINE_MAX, JSON.stringify(kept));
    assert.ok(kept['stdout']!.entries <= ENTRIES_PER_INTERVAL * Math.ceil((FLOOD_SECONDS + 90) / 30), JSON.stringify(kept));
    // The sibling answered every probe, and the witness's lines all arrived: generous bounds, the figures are printed.
    assert.equal(flood.errors, 0, JSON.stringify(flood));
    assert.ok(flood.p99 < 5_000, `sibling /readyz p99 ${flood.p99} ms during the flood`);
    assert.ok(floodWitness.lines >= (FLOOD_SECONDS * 10) / 2, JSON.stringify(floodWitness));
    assert.ok(floodWitness.p99 < 10_000, `witness lines reached journald ${floodWitness.p99} ms late during the flood`);
  });
});
