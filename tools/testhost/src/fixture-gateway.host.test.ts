// The fixture gateway on a real host: argv and config errors, readiness, auth, restarts, signals, reboot.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { httpStatus, installGatewayUnit, unitProperties, waitForActiveState, waitForStatus, writeHostFile, type GatewayUnit } from './gateway-unit.js';
import { startTestHost, type TestHost } from './index.js';

const PORT = 18800;
const PASSWORD = "fixture pass 'quoted' $HOME";
/** Prints each distinct /readyz code (000 = not listening yet) until it answers 200. */
const OBSERVE_READINESS =
  'last=; for i in $(seq 600); do c=$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$1/readyz"); ' +
  '[ "$c" = "$last" ] || printf "%s " "$c"; last=$c; [ "$c" = 200 ] && break; sleep 0.1; done; echo';

describe('fixture gateway on a test host', { timeout: 15 * 60_000 }, () => {
  let host: TestHost;
  let gw: GatewayUnit;

  const setBehaviour = (fixtureGateway: Record<string, unknown>) => writeHostFile(host, gw.configPath, JSON.stringify({ gateway: { port: PORT }, fixtureGateway }), `${gw.account}:${gw.account}`);
  const starts = async () =>
    (await host.run(['cat', `${gw.stateDir}/fixture-starts.jsonl`]))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { pid: number; port: number; configPath: string });
  const restart = async (fixtureGateway: Record<string, unknown>) => {
    await host.run(['systemctl', 'stop', gw.unit]);
    await setBehaviour(fixtureGateway);
    await host.run(['systemctl', 'reset-failed', gw.unit]).catch(() => '');
    await host.run(['systemctl', 'start', gw.unit]);
  };

  before(async () => {
    host = await startTestHost();
    gw = await installGatewayUnit(host, {
      unit: 'occ-fixture',
      account: 'occfx',
      port: PORT,
      password: PASSWORD,
      script: host.fixtureGatewayPath,
      config: { gateway: { port: PORT } },
      service: ['TimeoutStopSec=3'],
    });
  });
  after(async () => {
    await host?.down();
  });

  it('exits 2 with a clear message on bad argv or an unreadable config, 3 on exitAtStart', async () => {
    const fixture = (args: string[], config = gw.configPath) =>
      host.exec(['env', `OPENCLAW_CONFIG_PATH=${config}`, 'OPENCLAW_STATE_DIR=/tmp/fx-state', host.nodePath, host.fixtureGatewayPath, ...args]);
    for (const args of [[], ['serve'], ['gateway', '--port'], ['gateway', '--port', 'http'], ['gateway', '--port', '70000'], ['gateway', '--verbose']]) {
      const r = await fixture(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /^fixture gateway: .*(usage|port)/, r.stderr);
    }
    const missing = await fixture(['gateway', '--port', '18801'], '/nonexistent/openclaw.json');
    assert.deepEqual([missing.code, /cannot read config \/nonexistent\/openclaw.json/.test(missing.stderr)], [2, true]);
    await writeHostFile(host, '/tmp/bad.json', '{"fixtureGateway":{"readyAfterMs":"soon"}}');
    const badType = await fixture(['gateway', '--port', '18801'], '/tmp/bad.json');
    assert.deepEqual([badType.code, /readyAfterMs must be a number/.test(badType.stderr)], [2, true]);
    await writeHostFile(host, '/tmp/exit.json', '{"fixtureGateway":{"exitAtStart":true}}');
    assert.equal((await fixture(['gateway', '--port', '18801'], '/tmp/exit.json')).code, 3);
  });

  it('serves readiness, health and password-gated info on loopback', async () => {
    await host.run(['systemctl', 'start', gw.unit]);
    await waitForStatus(host, PORT, '/readyz', '200', 60_000);
    assert.equal(await httpStatus(host, PORT, '/healthz'), '200');
    assert.equal((await host.run(['curl', '-s', '-I', '-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.1:${PORT}/readyz`])).trim(), '200');
    assert.equal((await host.run(['curl', '-s', '-X', 'POST', '-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.1:${PORT}/readyz`])).trim(), '405');
    assert.equal(await httpStatus(host, PORT, '/fixture/info'), '401');
    assert.equal(await httpStatus(host, PORT, '/fixture/info', ['x-fixture-password: wrong']), '401');
    const info = JSON.parse(await host.run(['curl', '-sf', '-H', `x-fixture-password: ${PASSWORD}`, `http://127.0.0.1:${PORT}/fixture/info`])) as Record<string, unknown>;
    const uid = Number((await host.run(['id', '-u', gw.account])).trim());
    const gid = Number((await host.run(['id', '-g', gw.account])).trim());
    const { MainPID } = await unitProperties(host, gw.unit, ['MainPID']);
    assert.deepEqual(
      {
        pid: info['pid'],
        port: info['port'],
        uid: info['uid'],
        gid: info['gid'],
        home: info['home'],
        stateDir: info['stateDir'],
        configPath: info['configPath'],
        passwordSha256: info['passwordSha256'],
      },
      { pid: Number(MainPID), port: PORT, uid, gid, home: gw.home, stateDir: gw.stateDir, configPath: gw.configPath, passwordSha256: createHash('sha256').update(PASSWORD).digest('hex') },
    );
    assert.ok(!Number.isNaN(Date.parse(String(info['startedAt']))));
    for (const line of (await host.run(['ss', '-Htln', `sport = :${PORT}`])).trim().split('\n')) assert.match(line, /127\.0\.0\.1:18800/);
    const log = await starts();
    assert.equal(log.length, 1);
    assert.deepEqual([log[0]?.pid, log[0]?.port, log[0]?.configPath], [Number(MainPID), PORT, gw.configPath]);
  });

  it('exits 0 on SIGTERM and records every start in its state dir', async () => {
    await host.run(['systemctl', 'stop', gw.unit]);
    const stopped = await unitProperties(host, gw.unit, ['ActiveState', 'Result', 'ExecMainStatus']);
    assert.deepEqual(stopped, { ActiveState: 'inactive', Result: 'success', ExecMainStatus: '0' });
    await host.run(['systemctl', 'start', gw.unit]);
    await waitForStatus(host, PORT, '/readyz', '200', 60_000);
    const log = await starts();
    assert.equal(log.length, 2);
    assert.notEqual(log[0]?.pid, log[1]?.pid);
  });

  it('can be slow to become ready, or never ready', async () => {
    await restart({ readyAfterMs: 10_000 });
    // Observed on the host itself, so ssh latency on a busy machine cannot hide the 503 phase.
    const seen = await host.run(['sh', '-c', OBSERVE_READINESS, 'observe', String(PORT)], { timeoutMs: 90_000 });
    assert.match(seen.trim(), /^(000 )*(503 )+200$/, 'up and not ready, then ready');
    await restart({ neverReady: true });
    await waitForStatus(host, PORT, '/healthz', '200', 30_000);
    await assert.rejects(waitForStatus(host, PORT, '/readyz', '200', 5_000), /answered 503/);
  });

  it('can crash after becoming ready', async () => {
    await restart({ crashAfterReadyMs: 3000 });
    assert.equal(await waitForActiveState(host, gw.unit, ['failed'], 60_000), 'failed');
    assert.deepEqual(await unitProperties(host, gw.unit, ['Result', 'ExecMainStatus']), { Result: 'exit-code', ExecMainStatus: '1' });
    assert.match(await host.journal(gw.unit), /fixture gateway ready\n(.*\n)*.*crashAfterReadyMs reached/);
  });

  it('can ignore SIGTERM, leaving systemd to kill it after TimeoutStopSec', async () => {
    await restart({ ignoreSigterm: true });
    await waitForStatus(host, PORT, '/readyz', '200', 60_000);
    const started = Date.now();
    await host.run(['systemctl', 'stop', gw.unit]);
    assert.ok(Date.now() - started >= 2500, 'stop waited for the timeout');
    const props = await unitProperties(host, gw.unit, ['Result', 'ExecMainCode', 'ExecMainStatus']);
    assert.deepEqual(props, { Result: 'timeout', ExecMainCode: '2', ExecMainStatus: '9' });
    assert.match(await host.journal(gw.unit), /ignoring SIGTERM/);
  });

  it('comes back after a reboot with its state and the same host key', async () => {
    await restart({});
    await host.run(['systemctl', 'enable', gw.unit]);
    const before = (await starts()).length;
    const bootId = (await host.run(['cat', '/proc/sys/kernel/random/boot_id'])).trim();
    const marker = `${Date.now()}`;
    await writeHostFile(host, '/var/lib/occ-marker', marker);
    await host.reboot();
    assert.equal((await host.run(['systemctl', 'is-system-running', '--wait'], { timeoutMs: 60_000 })).trim(), 'running');
    assert.equal((await host.run(['cat', '/var/lib/occ-marker'])).trim(), marker);
    assert.equal((await host.run(['hostname'])).trim(), host.name);
    assert.notEqual((await host.run(['cat', '/proc/sys/kernel/random/boot_id'])).trim(), bootId);
    await waitForStatus(host, PORT, '/readyz', '200', 60_000);
    assert.equal((await starts()).length, before + 1);
  });
});
