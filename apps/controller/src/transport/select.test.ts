// createExecutor: the Installation's `transport` picks the executor class and its bounds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SEED_INSTALLATION } from '../../test/config-fixtures.js';
import { loadInstallationConfiguration } from '../config/load.js';
import type { SshComputeConfiguration, Transport } from '../config/schema.js';
import { OpenSshMuxExecutor } from './openssh-mux.js';
import { createExecutor } from './select.js';
import { Ssh2PoolExecutor } from './ssh2-pool.js';
import { SystemSshCommandExecutor } from './system-ssh.js';

function config(transport: Transport, maxConcurrentOperationsPerHost = 4): SshComputeConfiguration {
  return { ...loadInstallationConfiguration({ text: SEED_INSTALLATION }), transport, maxConcurrentOperationsPerHost };
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

  it('returns the ssh2 pool for ssh2, bounded by maxConcurrentOperationsPerHost', async () => {
    for (const limit of [1, 4, 10]) {
      const executor = createExecutor(config('ssh2', limit));
      assert.ok(executor instanceof Ssh2PoolExecutor);
      assert.equal(executor.maxChannelsPerHost, limit);
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
