// createDefaultDeps and the driver over it: what is given is used as given, the rest follows the
// configuration; createExecutor: the Installation's `transport` picks the executor class and its bounds.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import pino from 'pino';
import { SEED_INSTALLATION } from '../test/config-fixtures.js';
import { loadInstallationConfiguration } from './config/index.js';
import type { SshComputeConfiguration, Transport } from './config/schema.js';
import { createDefaultDeps, createExecutor } from './deps.js';
import type { HelperProgress } from './public-types.js';
import { SshComputeDriver } from './driver.js';
import { HostLimiter } from './limiter.js';
import { FAKE_HELPER, FakeExecutor, NAMESPACE, heartbeat, okLine } from '../test/fakes.js';
import { OpenSshMuxExecutor } from './transport/openssh-mux.js';
import { Ssh2PoolExecutor } from './transport/ssh2-pool.js';
import { SystemSshCommandExecutor } from './transport/system-ssh.js';

const CONFIGURATION = loadInstallationConfiguration({ text: SEED_INSTALLATION });
const silent = pino({ level: 'silent' });

describe('createDefaultDeps', () => {
  it('keeps every dependency it is given', () => {
    const executor = new FakeExecutor();
    const limiter = new HostLimiter(1);
    const observer = { trace: <T>(_call: unknown, work: () => Promise<T>) => work() };
    const deps = createDefaultDeps(CONFIGURATION, { helper: FAKE_HELPER, executor, logger: silent, observer, limiter });
    assert.equal(deps.helper, FAKE_HELPER);
    assert.equal(deps.executor, executor);
    assert.equal(deps.logger, silent);
    assert.equal(deps.observer, observer);
    assert.equal(deps.limiter, limiter);
  });

  it('builds the transport the configuration selects and a limiter at its per-host bound', async () => {
    const deps = createDefaultDeps(CONFIGURATION, { helper: FAKE_HELPER, logger: silent });
    assert.ok(deps.executor instanceof OpenSshMuxExecutor);
    const ssh2 = createDefaultDeps({ ...CONFIGURATION, transport: 'ssh2', maxConcurrentOperationsPerHost: 2 }, { helper: FAKE_HELPER, logger: silent });
    assert.ok(ssh2.executor instanceof Ssh2PoolExecutor);
    const semaphore = ssh2.limiter.semaphoreFor('root@203.0.113.10:22');
    assert.deepEqual(
      [semaphore.acquire(), semaphore.acquire(), semaphore.acquire()].map((ticket) => ticket.immediate),
      [true, true, false],
    );
    await Promise.all([deps.executor.close?.(), ssh2.executor.close?.()]);
  });
});

describe('SshComputeDriver over its dependencies', () => {
  it('sends the helper artifact it was given, and reports heartbeats to onHelperProgress', async () => {
    const bytes = Buffer.from('/* a helper no build produced */');
    const helper = { bytes, sha256: createHash('sha256').update(bytes).digest('hex'), path: '/nowhere/host-helper.cjs' };
    const executor = new FakeExecutor((envelope, request) => {
      const stdout = `${heartbeat(0)}${heartbeat(1)}${okLine(envelope)}`;
      request.onStdout?.(Buffer.from(stdout));
      return { stdout };
    });
    const progress: HelperProgress[] = [];
    const driver = new SshComputeDriver({ configuration: CONFIGURATION, executor, helper, logger: silent, onHelperProgress: (p) => progress.push(p) });
    const result = await driver.ensureNamespace(NAMESPACE);
    assert.equal(result.namespaceReady, true);
    assert.deepEqual(
      executor.calls.map((call) => call.helper),
      [bytes],
    );
    assert.deepEqual(
      progress.map((p) => [p.host, p.namespaceName, p.operation, p.heartbeats]),
      [
        ['203.0.113.10:22', 'stable', 'ensure-namespace', 1],
        ['203.0.113.10:22', 'stable', 'ensure-namespace', 2],
      ],
    );
    await driver.close();
    assert.equal(executor.closed, 1);
  });
});

function config(transport: Transport, maxConcurrentOperationsPerHost = 4): SshComputeConfiguration {
  return { ...CONFIGURATION, transport, maxConcurrentOperationsPerHost };
}

describe('createExecutor', () => {
  it('returns the system ssh executor for system-ssh', () => {
    assert.ok(createExecutor(config('system-ssh')) instanceof SystemSshCommandExecutor);
  });

  it('returns the multiplexing executor for openssh-mux, creating nothing until a call', async () => {
    const executor = createExecutor(config('openssh-mux'));
    assert.ok(executor instanceof OpenSshMuxExecutor);
    assert.equal(await executor.controlDirectory(), undefined);
    await executor.close();
  });

  it('returns the ssh2 pool for ssh2, with channels for maxConcurrentOperationsPerHost and the runtime reads, at most 10', async () => {
    for (const [limit, channels] of [
      [1, 3],
      [4, 6],
      [9, 10],
      [10, 10],
    ] as const) {
      const executor = createExecutor(config('ssh2', limit));
      assert.ok(executor instanceof Ssh2PoolExecutor);
      assert.equal(executor.maxChannelsPerHost, channels);
      assert.equal(executor.openConnections, 0);
      await executor.close();
    }
  });

  it('refuses channel bounds outside 1..10', () => {
    for (const limit of [0, 11, 2.5]) {
      assert.throws(() => new Ssh2PoolExecutor(config('ssh2').ssh, { maxChannelsPerHost: limit }), RangeError);
    }
  });
});
