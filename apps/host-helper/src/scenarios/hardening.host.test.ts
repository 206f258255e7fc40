// Real-host proof of the gateway unit's systemd sandbox, with the fixture gateway and the real OpenClaw gateway.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentLayout, type AgentLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, activateArgs, ok, owner, prepareArgs, type CallOptions } from '@occ-ssh/test-support';

/** The ceiling for `systemd-analyze security`; the unit measures 1.3 on the test host (docs/hardening.md). */
const MAX_EXPOSURE = 2.5;

/** Every sandbox property as `systemctl show` reports it once systemd has loaded the rendered unit. */
function expectedProperties(layout: AgentLayout): Record<string, string> {
  return {
    NoNewPrivileges: 'yes',
    PrivateTmp: 'yes',
    ProtectSystem: 'strict',
    TemporaryFileSystem: `${ROOT}:ro /dev/shm:ro`,
    BindPaths: `${layout.home}:${layout.home}:rbind ${layout.state}:${layout.state}:rbind`,
    BindReadOnlyPaths: `${layout.current}:${layout.current}:rbind`,
    InaccessiblePaths: `${UNIT_DIR} -/run/dbus/system_bus_socket -/run/systemd/journal/socket -/run/systemd/journal/dev-log -/run/systemd/journal.openclaw-enterprise/socket -/run/systemd/journal.openclaw-enterprise/dev-log`,
    ReadOnlyPaths: '/run',
    ProtectHome: 'yes',
    UMask: '0077',
    PrivateDevices: 'yes',
    DevicePolicy: 'closed',
    ProtectKernelTunables: 'yes',
    ProtectKernelModules: 'yes',
    ProtectKernelLogs: 'yes',
    ProtectControlGroups: 'yes',
    ProtectClock: 'yes',
    ProtectHostname: 'yes',
    ProtectProc: 'invisible',
    ProcSubset: 'pid',
    PrivateUsers: 'yes',
    PrivateIPC: 'yes',
    RestrictNamespaces: 'yes',
    RestrictRealtime: 'yes',
    LockPersonality: 'yes',
    RemoveIPC: 'yes',
    KeyringMode: 'private',
    CapabilityBoundingSet: '',
    AmbientCapabilities: '',
    RestrictAddressFamilies: 'AF_INET AF_INET6 AF_NETLINK AF_UNIX',
    SystemCallArchitectures: 'native',
    SystemCallErrorNumber: '1',
    LimitCORE: '0',
    LimitCORESoft: '0',
    IPAddressDeny: '169.254.0.0/16 fe80::/10',
    // Left out on purpose: V8's JIT, and the gateway's openat2() state lock (see docs/hardening.md).
    MemoryDenyWriteExecute: 'no',
    RestrictSUIDSGID: 'no',
    PrivateNetwork: 'no',
  };
}

/** Tries to create and remove a file in each directory given; one line per directory. Constant script, paths as arguments. */
const WRITE_PROBE = 'for d do f="$d/.occ-write-probe"; if err=$( (: > "$f") 2>&1 ); then rm -f "$f"; echo "$d: writable"; ' + 'else echo "$d: refused: ${err##*: }"; fi; done';

/**
 * Everything the account can write, except the API filesystems, the unit's private /tmp, /var/tmp and
 * POSIX message queues (PrivateTmp=, PrivateIPC=) and the Agent's own home and state. Constant script.
 */
const WRITABLE_ELSEWHERE =
  'find / \\( -path /proc -o -path /sys -o -path /tmp -o -path /var/tmp -o -path /dev/mqueue -o -path "$1" -o -path "$2" \\) -prune ' +
  '-o -writable ! -type l ! -type c ! -type s ! -type p -print 2>/dev/null; true';

describe('the hardened gateway unit on a real host', { timeout: 20 * 60_000 }, () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hhard' });
  });
  after(() => host?.down());

  const layoutOf = (who: AgentOwner) => agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
  const mainPid = async (layout: AgentLayout) => (await host.run(['systemctl', 'show', '--property=MainPID', '--value', layout.unitName])).trim();
  const readyz = async (port: number) => (await host.exec(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.1:${port}/readyz`])).stdout;

  /** The "Overall exposure level" of `systemd-analyze security`, as a number. */
  async function exposure(unit: string): Promise<number> {
    const r = await host.exec(['systemd-analyze', 'security', '--no-pager', unit]);
    assert.equal(r.code, 0, r.stderr);
    const match = /Overall exposure level for (\S+): (\d+(?:\.\d+)?) /.exec(r.stdout);
    assert.ok(match, `no overall exposure line in:\n${r.stdout.slice(-500)}`);
    assert.equal(match[1], unit);
    return Number(match[2]);
  }

  async function properties(layout: AgentLayout, names: string[]): Promise<Record<string, string>> {
    const out = await host.run(['systemctl', 'show', layout.unitName, ...names.flatMap((name) => ['-p', name])]);
    return Object.fromEntries(
      out
        .trim()
        .split('\n')
        .map((line) => {
          const name = line.slice(0, line.indexOf('='));
          const value = line.slice(line.indexOf('=') + 1);
          // systemd keeps IPAddressDeny= as a set and prints it in no fixed order from boot to boot.
          return [name, name === 'IPAddressDeny' ? value.split(' ').sort().join(' ') : value];
        }),
    );
  }

  /** Uid, capabilities, no_new_privs and seccomp of a process, from /proc/<pid>/status. */
  async function processStatus(pid: string): Promise<Record<string, string>> {
    const status = await host.run(['cat', `/proc/${pid}/status`]);
    const field = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(status)?.[1]?.trim() ?? '';
    return Object.fromEntries(['Uid', 'Gid', 'CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp'].map((name) => [name, field(name)]));
  }

  async function assertSandboxedProcess(layout: AgentLayout): Promise<void> {
    const uid = (await host.run(['stat', '-c', '%u', layout.state])).trim();
    const gid = (await host.run(['stat', '-c', '%g', layout.state])).trim();
    const status = await processStatus(await mainPid(layout));
    assert.deepEqual(status, {
      Uid: `${uid}\t${uid}\t${uid}\t${uid}`,
      Gid: `${gid}\t${gid}\t${gid}\t${gid}`,
      CapInh: '0000000000000000',
      CapPrm: '0000000000000000',
      CapEff: '0000000000000000',
      CapBnd: '0000000000000000',
      CapAmb: '0000000000000000',
      NoNewPrivs: '1',
      Seccomp: '2',
    });
  }

  describe('with the fixture gateway', () => {
    const who = owner('hard-fx');
    const layout = layoutOf(who);
    const rev = prepareArgs(who, 1);
    let port = 0;
    let uid = '';
    let gid = '';
    let account = '';
    /** Outside home/ and state/, yet owned by the Agent: only the sandbox can refuse a write here. */
    const OWN_ELSEWHERE = '/var/lib/occ-hardening-probe';
    /** World-readable, but under /home, which ProtectHome=yes hides. */
    const HOME_PROBE = '/home/occ-home-probe';
    /** Runs argv in the unit's mount namespace as the Agent account. */
    const inUnit = async (argv: string[], timeoutMs?: number) =>
      host.run(['nsenter', '-t', await mainPid(layout), '-m', '-S', uid, '-G', gid, ...argv], timeoutMs === undefined ? undefined : { timeoutMs });

    before(async () => {
      await ok(host, 'ensure-namespace', { namespace: who.namespace });
      const prepared = await ok(host, 'prepare-revision', rev);
      account = prepared.account.name;
      uid = String(prepared.account.uid);
      gid = String(prepared.account.gid);
      await host.run(['install', '-d', '-m', '700', '-o', account, '-g', account, OWN_ELSEWHERE]);
      await host.run(['install', '-m', '644', '/dev/null', HOME_PROBE]);
    });

    test('activation renders the sandboxed unit and the gateway becomes ready', async () => {
      const result = await ok(host, 'activate-revision', activateArgs(rev));
      port = result.port;
      assert.equal(result.unitChanged, true);
      assert.equal(await readyz(port), '200');
      const unit = await host.run(['cat', layout.unitFile]);
      assert.match(unit, /^ProtectSystem=strict$/m);
      assert.match(unit, /^PrivateTmp=true$/m);
      assert.match(unit, /^NoNewPrivileges=true$/m);
    });

    test(`systemd-analyze security rates the unit at most ${MAX_EXPOSURE}`, async () => {
      const score = await exposure(layout.unitName);
      process.stderr.write(`# fixture gateway unit: overall exposure ${score}\n`);
      assert.ok(score <= MAX_EXPOSURE, `exposure ${score} > ${MAX_EXPOSURE}`);
    });

    test('systemd loaded every sandbox directive with the rendered value', async () => {
      const expected = expectedProperties(layout);
      assert.deepEqual(await properties(layout, Object.keys(expected)), expected);
      const filter = (await properties(layout, ['SystemCallFilter'])).SystemCallFilter ?? '';
      const allowed = new Set(filter.split(' '));
      assert.ok(!filter.startsWith('~'), 'an allow list, not a deny list');
      for (const call of ['openat2', 'clone3', 'epoll_pwait2', 'prlimit64', 'futex']) assert.ok(allowed.has(call), `${call} is allowed`);
      for (const call of ['setuid', 'mount', 'ptrace', 'reboot', 'setrlimit', 'sched_setscheduler', 'init_module', 'bpf']) assert.ok(!allowed.has(call), `${call} is filtered`);
    });

    test('the gateway runs as the Agent account, with no capabilities, no_new_privs and a seccomp filter', async () => {
      await assertSandboxedProcess(layout);
    });

    test('the Agent account can write only its home and state inside the unit, though its permissions allow more outside it', async () => {
      const dirs = [layout.home, layout.state, OWN_ELSEWHERE, '/run/lock', '/dev/shm'];
      const outside = await host.run(['runuser', '-u', account, '--', 'sh', '-c', WRITE_PROBE, 'write-probe', ...dirs]);
      assert.deepEqual(
        outside.trim().split('\n'),
        dirs.map((dir) => `${dir}: writable`),
        'plain Unix permissions let the account write all of them',
      );
      const inside = await inUnit(['sh', '-c', WRITE_PROBE, 'write-probe', ...dirs]);
      assert.deepEqual(inside.trim().split('\n'), [
        `${layout.home}: writable`,
        `${layout.state}: writable`,
        `${OWN_ELSEWHERE}: refused: Read-only file system`,
        '/run/lock: refused: Read-only file system',
        '/dev/shm: refused: Read-only file system',
      ]);
      const elsewhere = await inUnit(['sh', '-c', WRITABLE_ELSEWHERE, 'writable', layout.home, layout.state], 120_000);
      assert.deepEqual(elsewhere.trim().split('\n').filter(Boolean), [], 'nothing else in the unit is writable by the account');
    });

    test("/tmp is the unit's own; /proc shows neither root's processes nor system files; /home is hidden", async () => {
      const visible = async (path: string) => (await inUnit(['sh', '-c', 'test -e "$1" && echo visible || echo hidden', 'visible', path])).trim();
      await inUnit(['sh', '-c', ': > /tmp/occ-private-probe']);
      assert.equal((await host.exec(['test', '-e', '/tmp/occ-private-probe'])).code, 1, 'the host /tmp does not see it');
      assert.equal(await visible('/proc/1'), 'hidden', 'PID 1 runs as root: ProtectProc=invisible');
      assert.equal(await visible('/proc/self/status'), 'visible', "the account's own processes stay visible");
      assert.equal(await visible('/proc/meminfo'), 'hidden', 'ProcSubset=pid');
      assert.equal(await visible(HOME_PROBE), 'hidden', 'ProtectHome=yes');
      assert.equal((await host.exec(['runuser', '-u', account, '--', 'test', '-e', HOME_PROBE])).code, 0, 'outside the unit the account sees it');
    });
  });

  describe('with the real OpenClaw gateway', () => {
    const who = owner('hard-oc');
    const layout = layoutOf(who);
    const rev = prepareArgs(who, 1);
    const real = (): CallOptions => ({ runtime: { openclawPath: host.openclawPath } });

    test('probe accepts the real OpenClaw entry point', async () => {
      const result = await ok(host, 'probe', {}, real());
      assert.deepEqual(
        result.checks.filter((check) => !check.ok),
        [],
      );
    });

    test('the real gateway reaches readiness under the hardened unit, at most 2.5 exposed', async () => {
      await ok(host, 'ensure-namespace', { namespace: who.namespace }, real());
      await ok(host, 'prepare-revision', rev, real());
      const result = await ok(host, 'activate-revision', activateArgs(rev, {}, 120_000), real());
      process.stderr.write(`# real OpenClaw gateway: ready ${(result.readyMs / 1000).toFixed(1)} s after the hardened restart\n`);
      assert.equal(await readyz(result.port), '200');
      assert.equal((await properties(layout, ['NRestarts'])).NRestarts, '0', 'ready on its first start, not after restarts');
      const unit = await host.run(['cat', layout.unitFile]);
      assert.ok(unit.split('\n').includes(`ExecStart=${host.nodePath} ${host.openclawPath} gateway --port ${result.port}`));
      const score = await exposure(layout.unitName);
      process.stderr.write(`# real OpenClaw gateway unit: overall exposure ${score}\n`);
      assert.ok(score <= MAX_EXPOSURE, `exposure ${score} > ${MAX_EXPOSURE}`);
      const expected = expectedProperties(layout);
      assert.deepEqual(await properties(layout, Object.keys(expected)), expected);
      await assertSandboxedProcess(layout);
      const journal = await host.journal(layout.unitName);
      assert.match(journal, /\[gateway\] ready/);
      assert.doesNotMatch(journal, /ENOSYS|Function not implemented|status=31\/SYS/);
    });

    test('the sandboxed real gateway checks its password end to end', async () => {
      const { port } = await ok(host, 'verify-revision', { owner: who, revision: rev.revision }, real());
      const password = (await host.run(['cat', layout.passwordFile])).trim().replace(/^OPENCLAW_GATEWAY_PASSWORD=/, '');
      const health = (candidate: string) =>
        host.exec(['env', 'HOME=/tmp/occ-health-cli', host.nodePath, host.openclawPath, 'gateway', 'health', '--url', `ws://127.0.0.1:${port}`, '--password', candidate], {
          timeoutMs: 120_000,
        });
      const good = await health(password);
      assert.equal(good.code, 0, good.stderr);
      assert.match(good.stdout, /OK/);
      const bad = await health('wrong password');
      assert.notEqual(bad.code, 0);
      assert.match(bad.stdout + bad.stderr, /password mismatch/);
    });
    test("the real gateway is its unit's one main process and keeps its compile cache under NODE_COMPILE_CACHE, which the next start reuses", async () => {
      const account = (await host.run(['stat', '-c', '%U', layout.state])).trim();
      // Without the unit's OPENCLAW_PACKAGED_COMPILE_CACHE_RESPAWNED the launcher would start a second
      // Node process for a versioned cache directory and stay beside it as the unit's main process.
      const main = await mainPid(layout);
      const processes = (await host.run(['ps', '-o', 'pid=,ppid=,args=', '-u', account]))
        .trim()
        .split('\n')
        .map((line) => line.trim());
      const gateway = processes.find((line) => line.startsWith(`${main} `));
      assert.match(gateway ?? '', /^\d+\s+1\s+openclaw(-gateway)?$/, `the main process is the gateway itself: ${processes.join(' | ')}`);
      assert.ok(!processes.some((line) => line.includes('openclaw.mjs')), `no launcher process stays beside it: ${processes.join(' | ')}`);
      assert.ok((await host.run(['cat', `/proc/${main}/environ`])).split('\0').includes(`NODE_COMPILE_CACHE=${layout.compileCache}`));
      const files = async () => (await host.run(['find', layout.compileCache, '-type', 'f', '-printf', '%u %p %T@\n'])).trim().split('\n').filter(Boolean);
      // Node writes what it compiled when the process ends: the restart's old process fills the cache,
      // the new one reads it, and the stop shows what the new one would have written again.
      const warm = (await ok(host, 'activate-revision', activateArgs(rev, { OCC_ROUND: 'opaque-fill' }, 120_000), real())).readyMs;
      const filled = await files();
      assert.ok(filled.length > 50, `${filled.length} cache files after a start`);
      assert.ok(
        filled.every((line) => line.startsWith(`${account} ${layout.compileCache}/`)),
        "every cache file is the Agent's",
      );
      await ok(host, 'stop-revision', { owner: who, revision: rev.revision }, real());
      const after = await files();
      const rewritten = after.filter((line) => !filled.includes(line)).length;
      process.stderr.write(`# real OpenClaw gateway: ${filled.length} cache files; ready ${warm} ms with the cache; ${rewritten} files written again\n`);
      assert.ok(rewritten < filled.length / 10, `the warm start rewrote ${rewritten} of ${filled.length} cache files: the cache was not used`);
    });
  });
});
