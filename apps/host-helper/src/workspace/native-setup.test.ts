import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentLayout, renderUnit } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import { nativeSetupArgv, type NativeSetupRun } from './native-setup.js';

const ROOT = '/var/lib/openclaw-enterprise';
const layout = agentLayout(ROOT, '/etc/systemd/system', 'ns-1', 'agent-1');
const run: NativeSetupRun = {
  nodePath: '/usr/bin/node',
  openclawPath: '/opt/openclaw/openclaw.mjs',
  layout,
  account: { uid: 991, gid: 992 },
  configuration: '{"secret":"never on argv"}',
  port: 18800,
  root: ROOT,
  limits: { memoryMaxMiB: 512, tasksMax: 64 },
};

const properties = (argv: string[]) => argv.filter((arg) => arg.startsWith('--property=')).map((arg) => arg.slice('--property='.length));

describe('nativeSetupArgv', () => {
  it("runs in the Agent's own transient unit, waits for it, and discards its output everywhere", () => {
    const argv = nativeSetupArgv(run, 120_000);
    assert.deepEqual(argv.slice(0, 5), [`--unit=${layout.setupUnitName}`, '--wait', '--collect', '--quiet', '--service-type=exec']);
    assert.deepEqual(argv.slice(argv.indexOf('--')), ['--', run.nodePath, run.openclawPath, 'setup', '--baseline']);
    const props = properties(argv);
    for (const expected of ['User=991', 'Group=992', 'StandardInput=null', 'StandardOutput=null', 'StandardError=null', 'KillMode=control-group', 'RuntimeMaxSec=125'])
      assert.ok(props.includes(expected), expected);
    assert.ok(argv.includes(`--setenv=OPENCLAW_CONFIG_PATH=${layout.state}/.occ-workspace-setup/openclaw.json`));
    assert.ok(!argv.some((arg) => arg.includes('never on argv')), 'the configuration travels in a file, never on argv');
  });

  it('carries every sandbox and limit line of the gateway unit, except the snapshot it does not read', () => {
    const unit = renderUnit({
      namespaceId: 'ns-1',
      agentId: 'agent-1',
      account: 'occ-a-0123456789ab',
      nodePath: run.nodePath,
      openclawPath: run.openclawPath,
      port: run.port,
      root: ROOT,
      layout,
      managedPassword: false,
      limits: run.limits,
    });
    const start = unit.indexOf('NoNewPrivileges=true');
    const gateway = unit.slice(start, unit.indexOf('\n\n', start)).split('\n');
    assert.ok(gateway.includes('MemoryMax=512M') && gateway.includes('SocketBindDeny=any') && gateway.includes(`TemporaryFileSystem=${ROOT}:ro`));
    // No core file, no link-local address, and no journal socket for setup either (its output goes nowhere).
    assert.ok(gateway.includes('LimitCORE=0') && gateway.includes('IPAddressDeny=169.254.0.0/16 fe80::/10'));
    assert.ok(gateway.some((line) => line.startsWith('InaccessiblePaths=') && line.includes('/run/systemd/journal/socket')));
    assert.ok(gateway.includes('LogNamespace=openclaw-enterprise') && gateway.includes('LogRateLimitBurst=1000'));
    assert.deepEqual(
      properties(nativeSetupArgv(run, 120_000)).filter((line) => gateway.includes(line)),
      gateway.filter((line) => line !== `BindReadOnlyPaths=${layout.current}`),
    );
  });

  it('a runtime the sandbox cannot render is a configuration error before anything runs', () => {
    assert.throws(
      () => nativeSetupArgv({ ...run, openclawPath: `${ROOT}/openclaw.mjs` }, 120_000),
      (error: unknown) => error instanceof ComputeError && error.code === 'configuration' && /openclawPath/.test(error.message),
    );
  });
});
