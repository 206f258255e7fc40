// What a host never receives from the controller, read on a real host after a deployment: the
// controller's SSH key, its local paths, the Installation's text.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { TestHost } from '@occ-ssh/testhost';
import type { SshComputeDriver } from '../driver.js';
import { ROOT, deployFirstRevision, startHookedDriver, stopHookedDriver } from '../../test/driver-host.js';

describe('controller secrets on a real host', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  const calls: string[] = [];

  before(async () => {
    ({ host, driver } = await startHookedDriver('csecrets', calls, { signal: () => undefined, failStart: () => false }));
    await deployFirstRevision(driver, calls);
  });
  after(() => stopHookedDriver(host, driver));

  test('the host receives no controller SSH credential, local paths or Installation text', async () => {
    // Line 4 of an OpenSSH key is private key material; lines 1-2 hold a header common to every ed25519 key.
    const keyLine = readFileSync(host.identityFile, 'utf8').split('\n')[3]!;
    assert.ok(/^[A-Za-z0-9+/=]{60,}$/.test(keyLine));
    const needles = [keyLine, host.identityFile, host.knownHostsFile, 'connectTimeoutSeconds', 'knownHostsFile', 'identityFile'];
    const found = await host.exec(['grep', '-rlsF', ...needles.flatMap((n) => ['-e', n]), ROOT, '/etc', '/root', '/tmp', '/var/tmp', '/home', '/run', '/var/log']);
    assert.equal(found.code, 1, `found in: ${found.stdout}`);
  });
});
