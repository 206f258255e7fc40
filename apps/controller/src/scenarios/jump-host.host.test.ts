// A target host reached only through a bastion (ssh.jumpHost), over every transport: the bastion's
// host key comes from the same known_hosts file, and a wrong one is a host-key failure.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { linkTestHosts, startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ComputeError } from '@occ-ssh/protocol';
import { TRANSPORTS } from '../config/index.js';
import { SshComputeDriver } from '../driver.js';
import { rejection } from '../../test/fakes.js';
import { configFor, hostInfo, memoryLogger } from '../../test/hosts.js';

describe('a host behind a bastion', () => {
  let bastion: TestHost;
  let target: TestHost;
  let targetAddress: string;
  let knownHosts: string;
  let wrongBastionKey: string;
  // A TMPDIR of this file's own, so the count sees only this file's configs while others run at the same time.
  const sharedTmp = process.env['TMPDIR'];
  const privateTmp = mkdtempSync(`${tmpdir()}/occ-jump-tmp-`);
  const jumpConfigs = () => readdirSync(privateTmp).filter((entry) => entry.startsWith('occ-ssh-jump-'));
  const hostKey = async (h: TestHost) => (await h.run(['cat', '/etc/ssh/ssh_host_ed25519_key.pub'])).split(' ').slice(0, 2).join(' ');

  before(async () => {
    process.env['TMPDIR'] = privateTmp;
    [bastion, target] = await Promise.all([startTestHost({ name: 'cbast' }), startTestHost({ name: 'cbtgt' })]);
    ({ targetAddress } = await linkTestHosts(bastion, target));
    const dir = mkdtempSync(`${tmpdir()}/occ-jump-`);
    const [bastionKey, targetKey] = [await hostKey(bastion), await hostKey(target)];
    knownHosts = `${dir}/known_hosts`;
    writeFileSync(knownHosts, `${bastion.address} ${bastionKey}\n${targetAddress} ${targetKey}\n`);
    wrongBastionKey = `${dir}/known_hosts.wrong`;
    writeFileSync(wrongBastionKey, `${bastion.address} ${targetKey}\n${targetAddress} ${targetKey}\n`);
  });
  after(async () => {
    if (sharedTmp === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = sharedTmp;
    rmSync(privateTmp, { recursive: true, force: true });
    await Promise.all([bastion?.down(), target?.down()]);
  });

  const driverFor = (transport: (typeof TRANSPORTS)[number], knownHostsFile: string, jump = true) =>
    new SshComputeDriver({
      configuration: configFor(
        { stable: { ...hostInfo(target), address: targetAddress } },
        { transport, knownHostsFile, ...(jump ? { jumpHost: { address: bastion.address, port: 22, user: 'root' } } : {}) },
      ),
      logger: memoryLogger().logger,
    });

  test('the controller has no route to the target except through the bastion', async () => {
    const direct = driverFor('system-ssh', knownHosts, false);
    const error = await direct.preflight().catch((e: unknown) => e);
    await direct.close();
    assert.ok(error instanceof ComputeError);
    assert.equal(error.details.transportCause, 'no-route');
  });

  for (const transport of TRANSPORTS) {
    test(`${transport}: preflight and a Namespace on the target, through the bastion`, async () => {
      const driver = driverFor(transport, knownHosts);
      try {
        await driver.preflight();
        if (transport !== 'ssh2') assert.equal(jumpConfigs().length, 1, 'the system client reads the bastion from a private ssh_config');
        assert.deepEqual(await driver.ensureNamespace({ id: `ns-jump-${transport}`, name: 'stable' }), { namespaceId: `ns-jump-${transport}`, namespaceReady: true });
      } finally {
        await driver.close();
      }
      // The effect landed on the target, not on the bastion.
      assert.match(
        await target.run(['journalctl', '--no-pager', '-o', 'cat', '_UID=0', '_TRANSPORT=syslog', 'SYSLOG_IDENTIFIER=occ-ssh-helper']),
        new RegExp(`operation=ensure-namespace outcome=ok .*namespace=ns-jump-${transport} `),
      );
      assert.equal((await bastion.exec(['test', '-e', '/var/lib/openclaw-enterprise/namespaces'])).code, 1);
      assert.deepEqual(jumpConfigs(), [], 'close() removed the generated ssh_config of the jump host');
    });

    test(`${transport}: a bastion whose host key does not match known_hosts is a host-key failure`, async () => {
      const driver = driverFor(transport, wrongBastionKey);
      try {
        const error = await rejection(driver.preflight());
        assert.equal(error.code, 'transport');
        assert.equal(error.details.transportCause, 'host-key', error.message);
      } finally {
        await driver.close();
      }
    });
  }
});
