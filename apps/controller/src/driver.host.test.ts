// The SshComputeDriver against a real systemd host through the system ssh client: every method and the worker flow.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { onDefaultImage, startTestHost, type TestHost } from '@occ-ssh/testhost';
import { SshComputeDriver } from './driver.js';
import { rejection } from '../test/fakes.js';
import { agentBinding, configFor, hostInfo, memoryLogger, revisionOf, type HostInfo, type InstallationOptions } from '../test/hosts.js';
import type { AgentRevision, LifecycleDriver } from './types.js';
import { ComputeError } from '@occ-ssh/protocol';
import { TRANSPORTS } from './config/index.js';
import { closedLoopbackPort, silentLoopbackListener } from '@occ-ssh/test-support';

/**
 * The lifecycle runs over every transport on the default image. On the second image (CI's Debian 13
 * subset) it runs over the system ssh client only: what tells the transports apart is on the
 * controller's side, which the default image proves; each one still connects to this image's sshd,
 * authenticates and runs the helper (below), and meets its refusals (the unreachable-host cases).
 */
const LIFECYCLE_TRANSPORTS: readonly (typeof TRANSPORTS)[number][] = onDefaultImage() ? TRANSPORTS : ['system-ssh'];

for (const transport of LIFECYCLE_TRANSPORTS)
  describe(`SshComputeDriver on a real host over ${transport}`, () => {
    let host: TestHost;
    let driver: SshComputeDriver;
    /** What OCC's getOperationAbortSignal would return for the operation in progress. */
    let operationSignal: AbortSignal | undefined;
    const log = memoryLogger();
    const calls: string[] = [];
    const iam: LifecycleDriver = {
      id: 'iam-test',
      capability: 'iam',
      implementation: 'test/iam',
      computeLifecycleHooks: {
        async afterNamespacePrepared(ns) {
          calls.push(`afterNamespacePrepared:${ns.name}`);
        },
        async beforeWorkloadStart(revision, launch) {
          calls.push(`beforeWorkloadStart:${revision.revision}`);
          launch.environment.OCC_IAM_PLACEHOLDER = 'opaque-iam-7f3a';
        },
        async beforeWorkloadStop(revision) {
          calls.push(`beforeWorkloadStop:${revision.revision}`);
        },
        async beforeNamespaceDelete(ns) {
          calls.push(`beforeNamespaceDelete:${ns.name}`);
        },
      },
    };
    const binding = agentBinding('flow', 'stable');
    const rev1 = revisionOf(binding, 1);
    const rev2 = revisionOf(binding, 2, { fixtureGateway: { readyAfterMs: 200 } });
    const rev4 = revisionOf(binding, 4, { fixtureGateway: { readyAfterMs: 200 } });
    let active: AgentRevision | null = null;
    const inventory = async () => (await driver.inventory('stable')).namespaces.flatMap((ns) => ns.agents);

    before(async () => {
      host = await startTestHost({ name: `cdrv-${transport.slice(0, 4)}` });
      driver = new SshComputeDriver({ configuration: configFor({ stable: host }, { transport }), logger: log.logger, getOperationAbortSignal: () => operationSignal, readinessTimeoutMs: 20_000 });
      driver.setLifecycleDrivers([iam]);
    });
    after(async () => {
      await driver?.close();
      await host?.down();
    });

    test('preflight probes the host through the system ssh client', async () => {
      await driver.preflight();
    });

    test('an unbound revision fails closed before any host is touched', async () => {
      const error = await rejection(driver.prepareRevision(rev1));
      assert.equal(error.code, 'unbound');
      assert.equal(error.failure, 'permanent');
    });

    test('ensureNamespace prepares the marker and then runs afterNamespacePrepared', async () => {
      assert.deepEqual(await driver.ensureNamespace(binding.namespace), { namespaceId: binding.namespace.id, namespaceReady: true });
      assert.deepEqual(calls.splice(0), ['afterNamespacePrepared:stable']);
      assert.deepEqual(await driver.ensureNamespace({ id: 'ns-unmapped', name: 'nowhere' }), {
        namespaceId: 'ns-unmapped',
        namespaceReady: false,
        failure: 'permanent',
        reason: 'configuration: Namespace nowhere is not mapped to a host in drivers.compute.configuration.hosts',
      });
    });

    test('lifecycle owners are fixed once the first operation began', () => {
      assert.throws(() => driver.setLifecycleDrivers([]), /fixed once the first lifecycle operation/);
    });

    test('the worker flow: bind, validate, prepare, commit, activate', async () => {
      driver.bindAgent(binding);
      driver.validateHarnessAuth(rev1.harness, rev1.harnessAuth, rev1.configuration);
      assert.deepEqual(await driver.prepareRevision(rev1), { namespaceId: binding.namespace.id, agentId: binding.agent.id, revisionId: rev1.id, ready: true });
      active = rev1; // OCC's compare-and-set of the active revision
      await driver.activateRevision(rev1);
      assert.deepEqual(calls.splice(0), ['beforeWorkloadStart:1']);
      const [agent] = await inventory();
      assert.equal(agent?.servedRevisionId, rev1.id);
      assert.equal(agent?.ready, true);
      const unit = await host.run(['cat', `/etc/systemd/system/${agent!.unit}`]);
      assert.doesNotMatch(unit, /opaque-iam-7f3a/, 'the world-readable unit never holds a placeholder');
      const launchEnv = /^EnvironmentFile=(\S+\/launch\.env)$/m.exec(unit)?.[1];
      assert.ok(launchEnv, 'the unit loads its launch.env');
      assert.match(await host.run(['cat', launchEnv]), /^OCC_IAM_PLACEHOLDER="opaque-iam-7f3a"$/m);
      const endpoint = await driver.gatewayAddress(rev1);
      assert.deepEqual(endpoint, { host: host.address, port: 18800, url: 'http://127.0.0.1:18800' });
    });

    test('a failed OCC commit after preparation leaves the previous gateway serving', async () => {
      assert.equal((await driver.prepareRevision(rev2)).ready, true);
      const committed = active?.id === rev1.id ? false : true; // the compare-and-set lost: another writer moved on
      assert.equal(committed, false);
      const [agent] = await inventory();
      assert.equal(agent?.currentRevisionId, rev1.id);
      assert.equal(agent?.servedRevisionId, rev1.id);
      assert.equal(agent?.ready, true);
      assert.deepEqual(
        agent?.revisions.map((r) => r.number),
        [1, 2],
      );
    });

    test('cancellation mid-activation is retryable and a retry converges', async () => {
      const slow = revisionOf(binding, 3, { fixtureGateway: { readyAfterMs: 15_000 } });
      await driver.prepareRevision(slow);
      const controller = new AbortController();
      operationSignal = controller.signal;
      setTimeout(() => controller.abort(), 2500);
      const error = await driver.activateRevision(slow).catch((e: unknown) => e);
      operationSignal = undefined;
      assert.ok(error instanceof ComputeError);
      assert.equal(error.code, 'cancelled');
      assert.equal(error.failure, 'retryable');
      assert.deepEqual(calls.splice(0), ['beforeWorkloadStart:3', 'beforeWorkloadStop:3'], 'started hooks are compensated');
      const [agent] = await inventory();
      assert.notEqual(agent?.servedRevisionId, slow.id, 'a cancelled activation is never recorded as served');
      await driver.activateRevision(slow);
      assert.equal((await inventory())[0]?.servedRevisionId, slow.id);
      calls.splice(0);
    });

    test('activation of the committed revision, then retirement of the previous ones', async () => {
      // OCC commits a new revision, never the older rev2 that lost its commit: the host refuses to roll back.
      active = rev4;
      assert.equal((await driver.prepareRevision(rev4)).ready, true);
      await driver.activateRevision(rev4);
      for (const revision of [rev1, rev2, revisionOf(binding, 3)]) await driver.retireRevision(revision);
      assert.deepEqual(calls.splice(0), ['beforeWorkloadStart:4', 'beforeWorkloadStop:1', 'beforeWorkloadStop:2', 'beforeWorkloadStop:3']);
      const [agent] = await inventory();
      assert.deepEqual(
        agent?.revisions.map((r) => r.number),
        [4],
      );
      assert.equal(agent?.servedRevisionId, rev4.id);
    });

    test('deactivateRevision only verifies ownership', async () => {
      await driver.deactivateRevision(rev4);
      assert.equal((await inventory())[0]?.unitState, 'active');
    });

    test('an ownership conflict on the host is permanent and names the path', async () => {
      const [agent] = await inventory();
      const unitFile = `/etc/systemd/system/${agent!.unit}`;
      const original = await host.run(['cat', unitFile]);
      await host.run(['sed', '-i', '2s/.*/# X-OCC-Namespace-Id=someone-else/', unitFile]);
      const error = await rejection(driver.activateRevision(rev4));
      assert.equal(error.code, 'ownership');
      assert.equal(error.failure, 'permanent');
      assert.equal(error.details.path, unitFile);
      assert.equal(error.details.host, 'stable');
      assert.deepEqual(calls.splice(0), ['beforeWorkloadStart:4', 'beforeWorkloadStop:4'], 'a failed activation compensates its hooks');
      await host.run(['tee', unitFile], { input: original });
    });

    test('stopRevision stops the gateway and keeps the snapshot', async () => {
      await driver.stopRevision(rev4);
      const [agent] = await inventory();
      assert.equal(agent?.unitState, 'inactive');
      assert.equal(agent?.currentRevisionId, null);
      assert.deepEqual(
        agent?.revisions.map((r) => r.number),
        [4],
      );
      assert.deepEqual(calls.splice(0), ['beforeWorkloadStop:4']);
    });

    test('deleteNamespace removes everything and clears the bindings only after success', async () => {
      const result = await driver.deleteNamespace(binding.namespace);
      assert.deepEqual(result, { namespaceId: binding.namespace.id, namespaceDeleted: true });
      assert.deepEqual(calls.splice(0), ['beforeNamespaceDelete:stable']);
      assert.deepEqual((await driver.inventory('stable')).namespaces, []);
      assert.equal((await rejection(driver.prepareRevision(rev2))).code, 'unbound');
    });

    test('logs carry host, operation and resource fields and never the password, placeholders or documents', async () => {
      const text = log.text();
      // The host is the machine (address:port); the Namespace name it serves has its own field.
      assert.ok(text.includes(`"host":"${host.address}:${host.port}","namespaceName":"stable"`), text.slice(0, 2000));
      assert.match(text, /"operation":"activate-revision"/);
      assert.match(text, /"revision":"rev-agent-flow-2"/);
      assert.doesNotMatch(text, /opaque-iam-7f3a/);
      assert.doesNotMatch(text, /OPENCLAW_GATEWAY_PASSWORD=/);
      assert.doesNotMatch(text, /fixtureGateway/);
    });
  });

if (!onDefaultImage())
  describe("every transport reaches this image's sshd", () => {
    for (const transport of TRANSPORTS.filter((t) => !LIFECYCLE_TRANSPORTS.includes(t)))
      test(`preflight over ${transport}: the handshake, the key and a helper run`, async () => {
        await using host = await startTestHost({ name: `cpf-${transport.slice(0, 4)}` });
        const driver = new SshComputeDriver({ configuration: configFor({ stable: host }, { transport }), logger: memoryLogger().logger });
        try {
          await driver.preflight();
        } finally {
          await driver.close();
        }
      });
  });

describe('SshComputeDriver refusals that need no host', () => {
  test('preflight refuses an identity file readable by others, naming the key', async () => {
    await using host = await startTestHost({ name: 'cpre' });
    const dir = mkdtempSync(`${tmpdir()}/occ-pre-`);
    copyFileSync(host.identityFile, `${dir}/id`);
    chmodSync(`${dir}/id`, 0o644);
    const driver = new SshComputeDriver({ configuration: configFor({ stable: { ...hostInfo(host), identityFile: `${dir}/id` } }), logger: memoryLogger().logger });
    const error = await rejection(driver.preflight());
    assert.equal(error.code, 'configuration');
    assert.equal(error.details.key, 'drivers.compute.configuration.ssh.identityFile');
  });
});

// Only addresses this run owns: a closed loopback port, a loopback listener that never speaks, and
// the address of a test host that was brought down (the harness routes the test range as unreachable).
/**
 * OpenSSH 9.8 and later (Debian 13's sshd) refuses a source address once its failed logins add up
 * (PerSourcePenalties: 5 s a failed authentication, refused from 15 s). Each transport fails two
 * logins per case here, so by the third transport sshd would close the connection before the host
 * key or the key is judged, and the case would see `connection-closed` instead of its own cause.
 * The controller's address is exempted on this host, so each case is judged as a first failure is.
 */
async function forgiveFailedLogins(host: TestHost): Promise<void> {
  const settings = await host.run(['sshd', '-T']);
  if (!/^persourcepenaltyexemptlist /m.test(settings)) return; // an sshd before 9.8 keeps no penalties
  const controller = (await host.run(['sh', '-c', 'echo "$SSH_CONNECTION"'])).split(' ')[0]!;
  await host.run(['sh', '-c', `printf 'PerSourcePenaltyExemptList %s\\n' "$1" > /etc/ssh/sshd_config.d/20-causes.conf && sshd -t && systemctl reload ssh`, 'sh', controller]);
}

describe('an unreachable host is a retryable transport failure naming the host', () => {
  let host: TestHost;
  let otherKnownHosts: string;
  let trustedKnownHosts: string;
  let strangerKey: string;
  let refusedPort: number;
  const silent = silentLoopbackListener();
  // Slot 0 of the test range is never handed to a host: like a host that was brought down, the
  // harness's unreachable route covers it (tools/testhost/src/hosts.host.test.ts shows both).
  const NO_HOST = '10.213.0.2';
  // Every target trusted with a real host key, so that no transport stops before it dials.
  const trusted = () => ({ knownHostsFile: trustedKnownHosts });

  before(async () => {
    host = await startTestHost({ name: 'cdown' });
    const other = await startTestHost({ name: 'cgone' });
    const keyOf = async (h: TestHost) => (await h.run(['cat', '/etc/ssh/ssh_host_ed25519_key.pub'])).split(' ').slice(0, 2).join(' ');
    // The other host's key filed under this host's address: a changed host key.
    const otherKey = await keyOf(other);
    await other.down();
    const key = await keyOf(host);
    await forgiveFailedLogins(host);
    refusedPort = await closedLoopbackPort();
    const dir = mkdtempSync(`${tmpdir()}/occ-causes-`);
    otherKnownHosts = `${dir}/known_hosts.other`;
    writeFileSync(otherKnownHosts, `${host.address} ${otherKey}\n`);
    trustedKnownHosts = `${dir}/known_hosts`;
    writeFileSync(trustedKnownHosts, [`[127.0.0.1]:${refusedPort}`, `[127.0.0.1]:${await silent.port()}`, NO_HOST].map((h) => `${h} ${key}\n`).join(''));
    strangerKey = `${dir}/id_ed25519`;
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', strangerKey]);
  });
  after(async () => {
    await host?.down();
    await silent.close();
  });

  // Each case names the cause the operator has to act on, in the details and in the message.
  const cases: Record<string, { cause: string; target: () => Promise<Partial<HostInfo>>; options?: () => Partial<InstallationOptions> }> = {
    'a refused port': { cause: 'refused', target: async () => ({ address: '127.0.0.1', port: refusedPort }), options: trusted },
    'a listener that never answers': { cause: 'timeout', target: async () => ({ address: '127.0.0.1', port: await silent.port() }), options: trusted },
    'a host that went away (no route)': { cause: 'no-route', target: async () => ({ address: NO_HOST, port: 22 }), options: trusted },
    'a host key that does not match known_hosts': { cause: 'host-key', target: async () => ({}), options: () => ({ knownHostsFile: otherKnownHosts }) },
    'a key the host does not authorize': { cause: 'authentication', target: async () => ({}), options: () => ({ identityFile: strangerKey }) },
  };
  for (const transport of TRANSPORTS) {
    for (const [what, { cause, target, options }] of Object.entries(cases)) {
      test(`${what} over ${transport}`, async () => {
        const gone = { ...hostInfo(host), ...(await target()) };
        const configuration = configFor({ gone }, { transport, ...options?.() });
        const driver = new SshComputeDriver({ configuration, logger: memoryLogger().logger });
        try {
          const error = await rejection(driver.preflight());
          assert.equal(error.code, 'transport');
          assert.equal(error.failure, 'retryable');
          assert.equal(error.details.host, 'gone');
          assert.equal(error.details.transportCause, cause, error.message);
          assert.match(error.message, new RegExp(`could not run the helper \\(${cause}\\): `));
          const { reason, ...result } = await driver.ensureNamespace({ id: 'ns-gone', name: 'gone' });
          assert.deepEqual(result, { namespaceId: 'ns-gone', namespaceReady: false, failure: 'retryable' });
          assert.match(reason ?? '', new RegExp(`^transport: .*could not run the helper ${cause}: `));
        } finally {
          await driver.close();
        }
      });
    }
  }
});
