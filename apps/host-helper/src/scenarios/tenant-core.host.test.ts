// Real-host proof that a gateway's memory never becomes a core file: a compromised gateway, as the
// Agent's account inside its unit, tries to raise its core limit (the shell's ulimit and prlimit) and
// then crashes children of its own with SIGSEGV and SIGABRT in its writable home/. The unit's hard
// limit of 0 holds: nothing can raise it, no core file appears anywhere, and no journal holds an entry
// with the crashed process's environment (where systemd-coredump would put the managed password).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, installTenantGateway, layoutOf, ok, owner, prepareArgs } from '@occ-ssh/test-support';

/** Once per Agent, before the fixture gateway starts: every way a process of the unit may try, then two crashes. */
const ATTACK = `
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const report = process.env.OPENCLAW_STATE_DIR + '/limits-attack.json';
if (!fs.existsSync(report)) {
  const sh = (script) => {
    const r = spawnSync('/bin/sh', ['-c', script], { cwd: process.env.HOME, encoding: 'utf8' });
    return { status: r.status, signal: r.signal, output: (r.stdout + r.stderr).trim() };
  };
  const raise = 'ulimit -S -c unlimited 2>/dev/null; ulimit -H -c unlimited 2>/dev/null; ';
  const result = {
    gateway: fs.readFileSync('/proc/self/limits', 'utf8').split('\\n').find((line) => line.startsWith('Max core file size')),
    raiseHard: sh('ulimit -H -c unlimited'),
    raiseSoft: sh('ulimit -S -c unlimited'),
    prlimit: sh('prlimit --pid $$ --core=unlimited:unlimited'),
    afterRaising: sh(raise + 'grep "^Max core file size" /proc/self/limits'),
    segv: sh(raise + 'exec /bin/sh -c "kill -SEGV \\\\$\\\\$"'),
    abrt: sh(raise + 'exec /bin/sh -c "kill -ABRT \\\\$\\\\$"'),
  };
  fs.writeFileSync(report, JSON.stringify(result));
}
`;

interface Outcome {
  status: number | null;
  signal: string | null;
  output: string;
}

describe('a compromised gateway cannot make a core dump of itself or its children', () => {
  let host: TestHost;
  const crasher = owner('crasher');

  before(async () => {
    host = await startTestHost({ name: 'hcore' });
  });
  after(() => host?.down());

  test('the core limit is 0 0 inside the unit, cannot be raised, and crashes leave no core file and no journal entry with the environment', async () => {
    const openclawPath = await installTenantGateway(host, 'crasher', ATTACK);
    await host.run(['touch', '/run/occ-before-crashes']);
    await ok(host, 'ensure-namespace', { namespace: crasher.namespace });
    const prepared = prepareArgs(crasher, 1);
    await ok(host, 'prepare-revision', prepared, { runtime: { openclawPath } });
    // A managed password in the unit's environment: what COREDUMP_ENVIRON would carry.
    await ok(host, 'activate-revision', activateArgs(prepared, { OCC_CORE_SECRET: 'opaque-core-secret-7d1f' }), { runtime: { openclawPath } });
    const layout = layoutOf(crasher);
    const attack = JSON.parse(await host.run(['cat', `${layout.state}/limits-attack.json`])) as {
      gateway: string;
      raiseHard: Outcome;
      raiseSoft: Outcome;
      prlimit: Outcome;
      afterRaising: Outcome;
      segv: Outcome;
      abrt: Outcome;
    };
    const pid = (await host.run(['systemctl', 'show', '-p', 'MainPID', '--value', layout.unitName])).trim();
    const limits = (await host.run(['cat', `/proc/${pid}/limits`])).split('\n').find((line) => line.startsWith('Max core file size')) ?? '';
    const pattern = (await host.run(['cat', '/proc/sys/kernel/core_pattern'])).trim();
    const exposure = (await host.run(['sh', '-c', 'systemd-analyze security --no-pager "$1" | tail -n 1', 'sh', layout.unitName])).trim();
    process.stderr.write(`# systemd-analyze security: ${exposure}\n`);
    process.stderr.write(`# core_pattern ${JSON.stringify(pattern)}; gateway pid ${pid}: ${limits}; inside: ${JSON.stringify(attack)}\n`);

    // The children did crash, in the writable home/, and left nothing.
    assert.equal(attack.segv.signal, 'SIGSEGV', JSON.stringify(attack.segv));
    assert.equal(attack.abrt.signal, 'SIGABRT', JSON.stringify(attack.abrt));
    const cores = await host.run(['find', '/', '-xdev', '(', '-name', 'core', '-o', '-name', 'core.[0-9]*', ')', '-type', 'f', '-newer', '/run/occ-before-crashes', '-print']);
    assert.equal(cores.trim(), '', `core files: ${cores}`);
    const owned = await host.run(['find', layout.dir, '(', '-name', 'core', '-o', '-name', 'core.[0-9]*', ')', '-print']);
    assert.equal(owned.trim(), '', `core files in the Agent's tree: ${owned}`);
    // Soft and hard 0, read by root from /proc and by the gateway itself.
    for (const line of [limits, attack.gateway]) assert.match(line, /^Max core file size\s+0\s+0\s+bytes\s*$/, line);
    // No process of the unit can raise it: the shell's ulimit and prlimit(1) both fail, and the limit reads 0 0 after trying.
    assert.notEqual(attack.raiseHard.status, 0, JSON.stringify(attack.raiseHard));
    assert.notEqual(attack.raiseSoft.status, 0, JSON.stringify(attack.raiseSoft));
    assert.notEqual(attack.prlimit.status, 0, JSON.stringify(attack.prlimit));
    assert.match(attack.afterRaising.output, /^Max core file size\s+0\s+0\s+bytes\s*$/, attack.afterRaising.output);
    // Neither the system journal nor the gateways' namespace holds a crash record or the environment.
    for (const journal of [[], [`--namespace=${GATEWAY_LOG_NAMESPACE}`]]) {
      await host.run(['journalctl', ...journal, '--sync']);
      const exported = await host.run(['sh', '-c', 'journalctl "$@" -o export | grep -a -c -e COREDUMP_ -e opaque-core-secret-7d1f || true', 'sh', ...journal]);
      assert.equal(exported.trim(), '0', `journal ${journal.join(' ') || 'system'}: ${exported}`);
    }
  });
});
