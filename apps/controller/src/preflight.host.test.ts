// Preflight on a real host: a missing OpenClaw, Node or known_hosts file, paths that only reach a
// sandbox-hidden directory through links, and SSH files mounted the way Kubernetes mounts a Secret
// (links into `..data`), over every transport; and a host that cannot enforce SocketBind* or the
// link-local IPAddressDeny= passes with a warning, as does a host with little disk under the root.
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { loadInstallationConfiguration } from './config/index.js';
import { SshComputeDriver } from './driver.js';
import { rejection } from '../test/fakes.js';
import { configFor, hostInfo, installationYaml, memoryLogger } from '../test/hosts.js';

describe('preflight on a real host', () => {
  let host: TestHost;
  const local = mkdtempSync(join(tmpdir(), 'occ-preflight-host-'));

  before(async () => {
    host = await startTestHost({ name: 'cpflt' });
  });
  after(async () => {
    await host?.down();
    rmSync(local, { recursive: true, force: true });
  });

  const preflight = (text: string) => new SshComputeDriver({ configuration: loadInstallationConfiguration({ text }), logger: memoryLogger().logger }).preflight();

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
    const noKnownHosts = await rejection(
      new SshComputeDriver({ configuration: configFor({ stable: host }, { knownHostsFile: '/nonexistent/known_hosts' }), logger: memoryLogger().logger }).preflight(),
    );
    assert.deepEqual([noKnownHosts.code, noKnownHosts.details.key], ['configuration', 'drivers.compute.configuration.ssh.knownHostsFile']);
  });

  test('paths that pass validation but link into a directory the sandbox hides are refused, naming the real path', async () => {
    await host.run(['mkdir', '-p', '/home/deploy', '/tmp/oc-root']);
    await host.run(['cp', host.fixtureGatewayPath, '/home/deploy/gateway.cjs']);
    await host.run(['ln', '-s', '/home/deploy/gateway.cjs', '/opt/linked-gateway.cjs']);
    await host.run(['ln', '-s', '/tmp/oc-root', '/var/lib/linked-root']);
    const base = installationYaml({ stable: hostInfo(host) });
    const linkedGateway = base.replace(`openclawPath: ${host.fixtureGatewayPath}`, 'openclawPath: /opt/linked-gateway.cjs');
    const error = await rejection(preflight(linkedGateway));
    assert.deepEqual([error.code, error.failure, error.details.host], ['host-requirement', 'permanent', 'stable']);
    assert.match(error.message, /sandbox-paths \(openclawPath \/opt\/linked-gateway\.cjs \(really \/home\/deploy\/gateway\.cjs\) is under \/home/);
    // A root that does not exist yet, below a link into /tmp.
    const linkedRoot = base.replace('root: /var/lib/openclaw-enterprise', 'root: /var/lib/linked-root/openclaw');
    const rootError = await rejection(preflight(linkedRoot));
    assert.match(rootError.message, /root \/var\/lib\/linked-root\/openclaw \(really \/tmp\/oc-root\/openclaw\) is under \/tmp/);
    await preflight(base);
  });

  test('a host whose systemd cannot enforce SocketBindAllow=/SocketBindDeny= passes preflight with one warning naming it and what is missing', async () => {
    // What docs/hardening.md states of the test hosts: Debian 12's systemd (252) lacks the BPF framework, Debian 13's (257)
    // has it, and nspawn runs hybrid cgroups on both, so the warning names the framework on 252 only.
    const version = await host.run(['systemctl', '--version']);
    const withoutBpf = /(?:^|\s)-BPF_FRAMEWORK(?:\s|$)/m.test(version);
    assert.equal(withoutBpf, /^systemd 252\b/.test(version), version);
    assert.equal((await host.run(['stat', '-f', '-c', '%T', '/sys/fs/cgroup'])).trim(), 'tmpfs');
    const { warnings } = await preflight(installationYaml({ stable: hostInfo(host) }));
    // Capacity warnings follow the machine's load, and the link-local one has its own test; this test is about the one SocketBind warning.
    const socketBind = warnings.filter((warning) => !warning.code.startsWith('HOST_') && !['GATEWAY_PORTS_EXHAUSTED', 'LINK_LOCAL_NOT_DENIED'].includes(warning.code));
    assert.equal(socketBind.length, 1, JSON.stringify(warnings));
    const [warning] = socketBind;
    assert.equal(warning!.code, 'SOCKET_BIND_NOT_ENFORCED');
    assert.ok(warning!.message.startsWith(`host "stable" (${host.address}) cannot enforce the gateway units' SocketBindAllow=/SocketBindDeny=: `), warning!.message);
    if (withoutBpf) assert.match(warning!.message, /systemd 252 is built without its BPF framework \(-BPF_FRAMEWORK in systemctl --version\)/);
    else assert.doesNotMatch(warning!.message, /BPF framework/);
    assert.match(warning!.message, /\/sys\/fs\/cgroup is not the unified cgroup v2 hierarchy \(a tmpfs of cgroup v1 hierarchies: hybrid or legacy layout\)/);
    assert.match(warning!.message, /the readiness check's listener-ownership test .* then stands alone/);
  });

  test('a host that cannot enforce IPAddressDeny= passes preflight with one warning naming the metadata service, and none where the Installation allows link-local', async () => {
    // nspawn runs the host on hybrid cgroups, where systemd builds no cgroup firewall.
    assert.equal((await host.run(['stat', '-f', '-c', '%T', '/sys/fs/cgroup'])).trim(), 'tmpfs');
    const text = installationYaml({ stable: hostInfo(host) });
    const linkLocal = (await preflight(text)).warnings.filter((warning) => warning.code === 'LINK_LOCAL_NOT_DENIED');
    assert.equal(linkLocal.length, 1, JSON.stringify(linkLocal));
    assert.equal(
      linkLocal[0]!.message,
      `host "stable" (${host.address}) cannot enforce the gateway units' IPAddressDeny=169.254.0.0/16 fe80::/10: /sys/fs/cgroup is not the unified cgroup v2 hierarchy (a tmpfs of cgroup v1 hierarchies: hybrid or legacy layout). ` +
        'A gateway there can reach link-local addresses, the cloud metadata service (169.254.169.254) among them; block it on the host or in the cloud (docs/hardening.md).',
    );
    const allowed = text.replace('      network:\n', '      network:\n        allowLinkLocal: true\n');
    assert.notEqual(allowed, text);
    assert.deepEqual(
      (await preflight(allowed)).warnings.filter((warning) => warning.code === 'LINK_LOCAL_NOT_DENIED'),
      [],
    );
  });

  test('a host with little disk under the root passes preflight with a HOST_DISK_LOW warning naming it and the free space', async () => {
    const root = '/srv/occ-low';
    await host.run(['mkdir', '-p', root]);
    await host.run(['mount', '-t', 'tmpfs', '-o', 'size=64m,mode=0755', 'tmpfs', root]);
    try {
      const text = installationYaml({ stable: hostInfo(host) }).replace('root: /var/lib/openclaw-enterprise\n', `root: ${root}\n`);
      assert.ok(text.includes(`root: ${root}\n`));
      const { warnings } = await preflight(text);
      const disk = warnings.filter((warning) => warning.code === 'HOST_DISK_LOW');
      assert.equal(disk.length, 1, JSON.stringify(warnings));
      assert.match(disk[0]!.message, new RegExp(`^host "stable" \\(${host.address.replace(/\./g, '\\.')}\\) has (6[0-4]|[1-5]?[0-9]) MiB free on the disk under the root, less than 2048 MiB$`));
    } finally {
      await host.exec(['umount', root]);
    }
  });

  for (const transport of ['openssh-mux', 'ssh2', 'system-ssh'] as const) {
    test(`${transport}: SSH files mounted like a Kubernetes Secret pass preflight and reach the host; a group-readable key does not`, async () => {
      const mount = join(local, transport);
      const stamped = join(mount, '..2026_11_30_14_00_00.000000001');
      mkdirSync(stamped, { recursive: true });
      copyFileSync(host.identityFile, join(stamped, 'id_ed25519'));
      chmodSync(join(stamped, 'id_ed25519'), 0o600);
      copyFileSync(host.knownHostsFile, join(stamped, 'known_hosts'));
      symlinkSync('..2026_11_30_14_00_00.000000001', join(mount, '..data'));
      symlinkSync('..data/id_ed25519', join(mount, 'id_ed25519'));
      symlinkSync('..data/known_hosts', join(mount, 'known_hosts'));
      const files = { ...hostInfo(host), identityFile: join(mount, 'id_ed25519') };
      const text = installationYaml({ stable: files }, { transport, knownHostsFile: join(mount, 'known_hosts') });
      const driver = new SshComputeDriver({ configuration: loadInstallationConfiguration({ text }), logger: memoryLogger().logger });
      try {
        await driver.preflight();
        // An operation after preflight reads the same files through the same links.
        assert.ok(Array.isArray((await driver.inventory('stable')).namespaces));
      } finally {
        await driver.close();
      }
      chmodSync(join(stamped, 'id_ed25519'), 0o640);
      const loose = await rejection(preflight(text));
      assert.deepEqual([loose.code, loose.details.key], ['configuration', 'drivers.compute.configuration.ssh.identityFile']);
      assert.match(loose.message, /readable by group or others \(mode 640\) \(through links to .*\.\.2026_11_30_14_00_00\.000000001\/id_ed25519\)/);
    });
  }
});
