// Loading the Installation: the reference example, defaults, freezing, files and what is not ours.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CONFIG_KEY, refusal, SEED_INSTALLATION, seedWith } from '../../test/config-fixtures.js';
import { loadInstallationConfiguration } from './load.js';

const EXPECTED = {
  ssh: { identityFile: '/etc/openclaw/ssh/id_ed25519', knownHostsFile: '/etc/openclaw/ssh/known_hosts', connectTimeoutSeconds: 10 },
  hosts: {
    stable: {
      address: '203.0.113.10',
      port: 22,
      user: 'root',
      nodePath: '/usr/bin/node',
      openclawPath: '/opt/openclaw/current/dist/index.js',
    },
  },
  runtime: {
    nodePath: '/usr/bin/node',
    openclawPath: '/opt/openclaw/current/dist/index.js',
    user: 'openclaw',
    root: '/var/lib/openclaw-enterprise',
    systemdUnitDirectory: '/etc/systemd/system',
  },
  network: { gatewayPortRange: { start: 18800, end: 18899 } },
  transport: 'openssh-mux',
  maxConcurrentOperationsPerHost: 4,
  maxConcurrentOperations: 64,
};

describe('loadInstallationConfiguration', () => {
  const directory = mkdtempSync(join(tmpdir(), 'occ-ssh-config-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('loads the reference example with defaults applied, leaving OCC selections unvalidated', () => {
    assert.deepEqual(loadInstallationConfiguration({ text: SEED_INSTALLATION }), EXPECTED);
  });

  it('defaults the host port, the connect timeout, the transport and the concurrency', () => {
    const config = loadInstallationConfiguration({
      text: seedWith(['          port: 22\n', ''], ['        connectTimeoutSeconds: 10\n', '']),
    });
    assert.equal(config.hosts['stable']?.port, 22);
    assert.equal(config.ssh.connectTimeoutSeconds, 10);
    assert.equal(config.transport, 'openssh-mux');
    assert.equal(config.maxConcurrentOperationsPerHost, 4);
    assert.equal(config.maxConcurrentOperations, 64);
  });

  it('reads an optional jump host, defaulting its port', () => {
    const text = seedWith(['        connectTimeoutSeconds: 10\n', '        connectTimeoutSeconds: 10\n        jumpHost:\n          address: bastion.example.net\n          user: jump\n']);
    assert.deepEqual(loadInstallationConfiguration({ text }).ssh.jumpHost, { address: 'bastion.example.net', port: 22, user: 'jump' });
    assert.equal(loadInstallationConfiguration({ text: seedWith() }).ssh.jumpHost, undefined);
  });

  it('keeps explicit optional settings', () => {
    const text = seedWith(['          end: 18899\n', '          end: 18899\n      transport: openssh-mux\n      maxConcurrentOperationsPerHost: 10\n      maxConcurrentOperations: 1000\n']);
    const config = loadInstallationConfiguration({ text });
    assert.equal(config.transport, 'openssh-mux');
    assert.equal(config.maxConcurrentOperationsPerHost, 10);
    assert.equal(config.maxConcurrentOperations, 1000);
  });

  it('accepts several hosts, hostnames and IPv6 literals, and a host without overrides', () => {
    const text = seedWith([
      '      runtime:\n',
      '        canary-eu:\n          address: gw-1.eu.example.com\n          port: 2222\n          user: root\n' +
        '        lab:\n          address: "2001:db8::10"\n          user: root\n      runtime:\n',
    ]);
    const config = loadInstallationConfiguration({ text });
    assert.deepEqual(Object.keys(config.hosts), ['stable', 'canary-eu', 'lab']);
    assert.deepEqual(config.hosts['lab'], { address: '2001:db8::10', port: 22, user: 'root' });
    assert.equal(config.hosts['canary-eu']?.port, 2222);
  });

  it('returns a deeply frozen configuration', () => {
    const config = loadInstallationConfiguration({ text: SEED_INSTALLATION });
    for (const part of [config, config.ssh, config.hosts, config.hosts['stable'], config.runtime, config.network, config.network.gatewayPortRange]) {
      assert.ok(Object.isFrozen(part));
    }
    assert.throws(() => {
      (config.runtime as { root: string }).root = '/tmp';
    }, TypeError);
  });

  it('reads the Installation file when only a path is given', () => {
    const file = join(directory, 'installation.yaml');
    writeFileSync(file, SEED_INSTALLATION);
    assert.deepEqual(loadInstallationConfiguration({ path: file }), EXPECTED);
  });

  it('names the file of a refused Installation in details.path', () => {
    const file = join(directory, 'refused.yaml');
    writeFileSync(file, seedWith(['          port: 22\n', '          port: 22x\n']));
    assert.throws(
      () => loadInstallationConfiguration({ path: file }),
      (error: unknown) => {
        assert.ok(error instanceof Error && 'details' in error);
        assert.deepEqual(error.details, { key: `${CONFIG_KEY}.hosts.stable.port`, path: file });
        return true;
      },
    );
  });

  it('refuses an unreadable file permanently, naming the path', () => {
    const file = join(directory, 'missing.yaml');
    assert.throws(
      () => loadInstallationConfiguration({ path: file }),
      (error: unknown) => {
        assert.ok(error instanceof Error && 'code' in error && 'failure' in error && 'details' in error);
        assert.equal(error.code, 'configuration');
        assert.equal(error.failure, 'permanent');
        assert.equal(error.message, `cannot read the Installation file ${JSON.stringify(file)} (ENOENT)`);
        assert.deepEqual(error.details, { path: file });
        return true;
      },
    );
  });

  it('cites the line the reference example puts the port on', () => {
    const error = refusal(seedWith(['          port: 22\n', '          port: 22x\n']));
    assert.equal(error.message, `${CONFIG_KEY}.hosts.stable.port: expected an integer from 1 to 65535, got "22x" (line 12)`);
  });
});
