// Real-host proof of driver-level spec promises the other controller suites leave open.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { agentLayout, revisionLayout } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { loadInstallationConfiguration } from './config/index.js';
import { SshComputeDriver } from './driver.js';
import { agentBinding, configFor, hostInfo, installationYaml, memoryLogger, revisionOf } from '../test/hosts.js';
import { FakeExecutor, NAMESPACE, agentFor, hookOwner, revisionFor } from '../test/fakes.js';
import type { AgentRevision } from './types.js';

const ROOT = '/var/lib/openclaw-enterprise';
const UNIT_DIR = '/etc/systemd/system';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rejection(promise: Promise<unknown>): Promise<ComputeError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
  return error;
}

describe('SshComputeDriver promises on a real host', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  /** What OCC's getOperationAbortSignal would return for the operation in progress. */
  let operationSignal: AbortSignal | undefined;
  const log = memoryLogger();
  const calls: string[] = [];
  let failStart = false;
  const iam = hookOwner('iam-gap', 'iam', {
    async beforeWorkloadStart(revision, launch) {
      calls.push(`start:${revision.revision}`);
      if (failStart) throw new Error('iam backend unavailable');
      launch.environment.OCC_GAP_PLACEHOLDER = `opaque-gap-${revision.revision}`;
    },
    async beforeWorkloadStop(revision) {
      calls.push(`stop:${revision.revision}`);
    },
  });
  const binding = agentBinding('cgap', 'stable');
  const layout = agentLayout(ROOT, UNIT_DIR, binding.namespace.id, binding.agent.id);
  const rev1 = revisionOf(binding, 1);
  const target = (revision: AgentRevision) => `${revisionLayout(layout.dir, revision.id).currentTarget}\n`;
  const mainPid = async () => (await host.run(['systemctl', 'show', '--property=MainPID', '--value', layout.unitName])).trim();
  const starts = async () => (await host.run(['cat', `${layout.state}/fixture-starts.jsonl`])).trim().split('\n').length;
  const agent = async () => (await driver.inventory('stable')).namespaces.flatMap((ns) => ns.agents).find((a) => a.agentId === binding.agent.id);
  const helperGone = async () => {
    for (let i = 0; i < 50 && (await host.exec(['pgrep', '-f', `^${host.nodePath} - `])).code === 0; i += 1) await sleep(100);
    return (await host.exec(['pgrep', '-f', `^${host.nodePath} - `])).code === 1;
  };

  before(async () => {
    host = await startTestHost({ name: 'cgap' });
    driver = new SshComputeDriver({ configuration: configFor({ stable: host }), logger: log.logger, getOperationAbortSignal: () => operationSignal, readinessTimeoutMs: 30_000 });
    driver.setLifecycleDrivers([iam]);
  });
  after(async () => {
    await driver?.close();
    await host?.down();
  });

  test('preflight names a host lacking OpenClaw (permanent host-requirement) or an executable node, and refuses a missing known_hosts file', async () => {
    const base = installationYaml({ stable: hostInfo(host), broken: hostInfo(host), nonode: hostInfo(host) });
    const override = (name: string, line: string) => (text: string) => text.replace(new RegExp(`(        ${name}:\\n(?:          .*\\n){3})`), `$1          ${line}\n`);
    const text = [override('broken', 'openclawPath: /opt/missing/gateway.cjs'), override('nonode', 'nodePath: /usr/lib/os-release')].reduce((t, f) => f(t), base);
    const configuration = loadInstallationConfiguration({ text });
    assert.equal(configuration.hosts['broken']?.openclawPath, '/opt/missing/gateway.cjs');
    const probe = (name: string) => new SshComputeDriver({ configuration: { ...configuration, hosts: { [name]: configuration.hosts[name]! } }, logger: memoryLogger().logger }).preflight();
    const missing = await rejection(probe('broken'));
    assert.deepEqual([missing.code, missing.failure, missing.details.host], ['host-requirement', 'permanent', 'broken']);
    assert.match(missing.message, /host "broken" .*is missing: openclaw \(\/opt\/missing\/gateway\.cjs is missing or not readable\)/);
    const nonode = await rejection(probe('nonode'));
    assert.deepEqual([nonode.code, nonode.failure, nonode.details.host, nonode.details.key], ['host-requirement', 'permanent', 'nonode', 'drivers.compute.configuration.runtime.nodePath']);
    assert.match(nonode.message, /host "nonode"/);
    await probe('stable');
    const noKnownHosts = await rejection(new SshComputeDriver({ configuration: configFor({ stable: host }, { knownHostsFile: '/nonexistent/known_hosts' }), logger: memoryLogger().logger }).preflight());
    assert.deepEqual([noKnownHosts.code, noKnownHosts.details.key], ['configuration', 'drivers.compute.configuration.ssh.knownHostsFile']);
  });

  test('accepted opaque launch placeholders reach the running gateway\'s environment', async () => {
    assert.equal((await driver.ensureNamespace(binding.namespace)).namespaceReady, true);
    driver.bindAgent(binding);
    await driver.prepareRevision(rev1);
    await driver.activateRevision(rev1);
    const environ = (await host.run(['cat', `/proc/${await mainPid()}/environ`])).split('\0');
    assert.ok(environ.includes('OCC_GAP_PLACEHOLDER=opaque-gap-1'));
    assert.deepEqual(calls.splice(0), ['start:1']);
  });

  test('preparing leaves the running gateway alone, and a failing beforeWorkloadStart hook prevents launch: the host is not touched', async () => {
    const rev2 = revisionOf(binding, 2);
    const before = { starts: await starts(), pid: await mainPid(), unit: await host.run(['sha256sum', layout.unitFile]) };
    assert.equal((await driver.prepareRevision(rev2)).ready, true);
    failStart = true;
    const error = await rejection(driver.activateRevision(rev2));
    failStart = false;
    assert.deepEqual([error.code, error.failure], ['hook', 'retryable']);
    assert.deepEqual(calls.splice(0), ['start:2'], 'the failed hook itself is not compensated');
    assert.deepEqual({ starts: await starts(), pid: await mainPid(), unit: await host.run(['sha256sum', layout.unitFile]) }, before);
    assert.equal(await host.run(['readlink', layout.current]), target(rev1));
    assert.equal((await agent())?.servedRevisionId, rev1.id);
  });

  test('cancellation and the operation bound end the local client: retryable, compensated, the helper stops, the submitted restart completes', async () => {
    const slow = revisionOf(binding, 3, { fixtureGateway: { readyAfterMs: 12_000 } });
    await driver.prepareRevision(slow);
    const controller = new AbortController();
    operationSignal = controller.signal;
    const before = await starts();
    const pending = rejection(driver.activateRevision(slow));
    for (let i = 0; i < 200 && (await starts()) === before; i += 1) await sleep(100);
    controller.abort();
    const cancelled = await pending;
    operationSignal = undefined;
    assert.deepEqual([cancelled.code, cancelled.failure], ['cancelled', 'retryable']);
    assert.match(cancelled.message, /a systemd job already submitted may still complete/);
    assert.deepEqual(calls.splice(0), ['start:3', 'stop:3']);
    assert.equal(await helperGone(), true, 'the helper saw its session close and stopped');
    assert.equal(await host.run(['readlink', layout.current]), target(slow));
    assert.equal((await host.run(['systemctl', 'is-active', layout.unitName])).trim(), 'active', 'the restart handed to systemd completed');
    assert.notEqual((await agent())?.servedRevisionId, slow.id);

    const bounded = new SshComputeDriver({ configuration: configFor({ stable: host }), logger: memoryLogger().logger, operationTimeoutMs: 6000 });
    try {
      bounded.bindAgent(binding);
      const slower = revisionOf(binding, 4, { fixtureGateway: { readyAfterMs: 15_000 } });
      await bounded.prepareRevision(slower);
      const started = Date.now();
      const timedOut = await rejection(bounded.activateRevision(slower));
      assert.deepEqual([timedOut.code, timedOut.failure], ['timeout', 'retryable']);
      assert.match(timedOut.message, /exceeded the 6-second operation bound/);
      assert.ok(Date.now() - started < 15_000, 'ended at the bound, not at readiness');
      assert.equal(await helperGone(), true);
      assert.notEqual((await agent())?.servedRevisionId, slower.id);
      await driver.activateRevision(slower);
      assert.equal((await agent())?.servedRevisionId, slower.id, 'a retry converges');
      calls.splice(0);
    } finally {
      await bounded.close();
    }
  });

  test('the host receives no controller SSH credential, local paths or Installation text', async () => {
    // Line 4 of an OpenSSH key is private key material; lines 1-2 hold a header common to every ed25519 key.
    const keyLine = readFileSync(host.identityFile, 'utf8').split('\n')[3]!;
    assert.ok(/^[A-Za-z0-9+/=]{60,}$/.test(keyLine));
    const needles = [keyLine, host.identityFile, host.knownHostsFile, 'connectTimeoutSeconds', 'knownHostsFile', 'identityFile'];
    const found = await host.exec(['grep', '-rlsF', ...needles.flatMap((n) => ['-e', n]), ROOT, '/etc', '/root', '/tmp', '/var/tmp', '/home', '/run', '/var/log']);
    assert.equal(found.code, 1, `found in: ${found.stdout}`);
  });

  test('a failed deletion keeps the bindings; once the host is fixed, deletion succeeds and clears them', async () => {
    const original = await host.run(['cat', layout.unitFile]);
    await host.run(['sed', '-i', '2s/.*/# X-OCC-Namespace-Id=someone-else/', layout.unitFile]);
    assert.deepEqual(await driver.deleteNamespace(binding.namespace), { namespaceId: binding.namespace.id, namespaceDeleted: false, failure: 'permanent' });
    assert.equal((await host.run(['systemctl', 'is-active', layout.unitName])).trim(), 'active', 'nothing was stopped');
    await host.run(['tee', layout.unitFile], { input: original });
    // Preparation also verifies the unit's header, so the binding is checked once the unit is fixed.
    assert.equal((await driver.prepareRevision(revisionOf(binding, 5))).ready, true, 'the binding survived');
    assert.deepEqual(await driver.deleteNamespace(binding.namespace), { namespaceId: binding.namespace.id, namespaceDeleted: true });
    assert.equal((await rejection(driver.prepareRevision(revisionOf(binding, 6)))).code, 'unbound');
    assert.equal((await host.exec(['test', '-e', layout.dir])).code, 1);
  });
});

describe('bindAgent keeps its own copy (no host: what is checked is the envelope the driver builds)', () => {
  test('changing the caller\'s Namespace, Agent or ServicePrincipal objects after bindAgent moves no ownership', async () => {
    const executor = new FakeExecutor();
    const driver = new SshComputeDriver({ configuration: loadInstallationConfiguration({ text: installationYaml({ stable: { address: '203.0.113.10', port: 22, identityFile: '/etc/openclaw/ssh/id_ed25519', knownHostsFile: '/etc/openclaw/ssh/known_hosts', nodePath: '/usr/bin/node', openclawPath: '/opt/openclaw/x.js', fixtureGatewayPath: '/opt/openclaw/x.js' } }) }), executor, logger: memoryLogger().logger });
    const namespace = { ...NAMESPACE };
    const agent = { ...agentFor() };
    driver.bindAgent({ namespace, agent });
    (namespace as { name: string }).name = 'elsewhere';
    (agent as { servicePrincipalId: string }).servicePrincipalId = 'sp-hijacked';
    await driver.prepareRevision(revisionFor());
    assert.deepEqual((executor.calls[0]!.envelope.args as { owner: unknown }).owner, { namespace: { id: 'ns-1', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } });
  });
});
