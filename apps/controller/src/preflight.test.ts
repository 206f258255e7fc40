// checkLocalSshFiles: the two local SSH files, reached directly or through links, with safe owner and mode;
// socketBindWarning: a probed host that cannot enforce SocketBind* is a warning, never a failure.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import type { SshComputeConfiguration } from './config/index.js';
import { LINK_LOCAL_NOT_DENIED, SOCKET_BIND_NOT_ENFORCED, checkLocalSshFiles, linkLocalWarning, missingOnHost, socketBindWarning } from './preflight.js';

const base = mkdtempSync(join(tmpdir(), 'occ-preflight-'));
after(() => rmSync(base, { recursive: true, force: true }));
let count = 0;

/**
 * The layout Kubernetes gives a mounted Secret: the files live in a timestamped directory, `..data`
 * links to it, and each visible name links to `..data/<name>`.
 */
function secretMount(modes: { identity?: number; knownHosts?: number } = {}) {
  const dir = join(base, `mount-${++count}`);
  const stamped = join(dir, '..2026_11_30_14_00_00.000000001');
  mkdirSync(stamped, { recursive: true });
  writeFileSync(join(stamped, 'id_ed25519'), 'key\n', { mode: modes.identity ?? 0o600 });
  writeFileSync(join(stamped, 'known_hosts'), 'host key\n', { mode: modes.knownHosts ?? 0o644 });
  chmodSync(join(stamped, 'id_ed25519'), modes.identity ?? 0o600);
  chmodSync(join(stamped, 'known_hosts'), modes.knownHosts ?? 0o644);
  symlinkSync('..2026_11_30_14_00_00.000000001', join(dir, '..data'));
  symlinkSync('..data/id_ed25519', join(dir, 'id_ed25519'));
  symlinkSync('..data/known_hosts', join(dir, 'known_hosts'));
  return { dir, identityFile: join(dir, 'id_ed25519'), knownHostsFile: join(dir, 'known_hosts'), stamped };
}

const config = (files: { identityFile: string; knownHostsFile: string }) =>
  ({ ssh: { identityFile: files.identityFile, knownHostsFile: files.knownHostsFile, connectTimeoutSeconds: 10 } }) as unknown as SshComputeConfiguration;

function refusal(files: { identityFile: string; knownHostsFile: string }, key: 'identityFile' | 'knownHostsFile'): ComputeError {
  try {
    checkLocalSshFiles(config(files));
  } catch (error) {
    assert.ok(error instanceof ComputeError);
    assert.equal(error.code, 'configuration');
    assert.equal(error.failure, 'permanent');
    assert.equal(error.details.key, `drivers.compute.configuration.ssh.${key}`);
    return error;
  }
  assert.fail('expected a refusal');
}

describe('checkLocalSshFiles', () => {
  it('accepts files mounted from a Kubernetes Secret (links through ..data to regular files)', () => {
    assert.doesNotThrow(() => checkLocalSshFiles(config(secretMount())));
    assert.doesNotThrow(() => checkLocalSshFiles(config(secretMount({ identity: 0o400, knownHosts: 0o444 }))));
  });

  it('still refuses an identity readable by group or others behind the links, naming the target', () => {
    for (const identity of [0o640, 0o604, 0o644, 0o440]) {
      const mount = secretMount({ identity });
      const error = refusal(mount, 'identityFile');
      assert.match(error.message, /readable by group or others/);
      assert.ok(error.message.includes(`through links to ${join(mount.stamped, 'id_ed25519')}`), error.message);
    }
  });

  it('refuses a known_hosts file others may write (a planted host key)', () => {
    for (const knownHosts of [0o664, 0o646]) assert.match(refusal(secretMount({ knownHosts }), 'knownHostsFile').message, /writable by group or others/);
  });

  it('refuses a link to a directory, a dangling link and a missing file', () => {
    const mount = secretMount();
    const toDir = join(mount.dir, 'to-dir');
    symlinkSync('..data', toDir);
    assert.match(refusal({ ...mount, identityFile: toDir }, 'identityFile').message, /is not a regular file \(through links to/);
    const dangling = join(mount.dir, 'dangling');
    symlinkSync('..data/nothing', dangling);
    assert.match(refusal({ ...mount, knownHostsFile: dangling }, 'knownHostsFile').message, /does not exist/);
    assert.match(refusal({ ...mount, identityFile: join(mount.dir, 'absent') }, 'identityFile').message, /does not exist/);
  });

  it('refuses a file owned by another user', { skip: process.geteuid?.() !== 0 && 'needs root to chown' }, () => {
    const mount = secretMount();
    chownSync(join(mount.stamped, 'id_ed25519'), 4321, 4321);
    assert.match(refusal(mount, 'identityFile').message, /owned by uid 4321/);
  });

  it('accepts plain regular files with safe modes', () => {
    const dir = join(base, 'plain');
    mkdirSync(dir);
    writeFileSync(join(dir, 'id'), 'key\n', { mode: 0o600 });
    writeFileSync(join(dir, 'kh'), 'host key\n', { mode: 0o644 });
    assert.doesNotThrow(() => checkLocalSshFiles(config({ identityFile: join(dir, 'id'), knownHostsFile: join(dir, 'kh') })));
  });
});

describe('socketBindWarning', () => {
  const capacity = { memoryTotalBytes: null, memoryAvailableBytes: null, rootFreeBytes: null, rootFreeInodes: null, agents: null, freePorts: null, freeAccountIds: null };
  const probe = (socketBindMissing: string[]) => ({ checks: [{ name: 'systemctl', ok: true }], nodeVersion: 'v24.1.0', hostname: 'h', socketBindMissing, ipAddressDenyMissing: [], capacity });

  it('warns with a stable code, naming the configured host, its address, each missing piece and what then stands alone', () => {
    const warning = socketBindWarning('stable', '203.0.113.10', probe(['systemd 252 is built without its BPF framework', '/sys/fs/cgroup is not the unified cgroup v2 hierarchy']));
    assert.equal(warning?.code, SOCKET_BIND_NOT_ENFORCED);
    assert.equal(warning.code, 'SOCKET_BIND_NOT_ENFORCED');
    assert.deepEqual(Object.keys(warning).sort(), ['code', 'message'], "exactly OCC's ComputePreflightWarning");
    assert.match(
      warning.message,
      /^host "stable" \(203\.0\.113\.10\) cannot enforce the gateway units' SocketBindAllow=\/SocketBindDeny=: systemd 252 is built without its BPF framework; \/sys\/fs\/cgroup is not/,
    );
    assert.match(warning.message, /listener-ownership test .* then stands alone/);
  });

  it('says nothing for a host that can enforce them, and never turns a warning into a failure', () => {
    assert.equal(socketBindWarning('stable', '203.0.113.10', probe([])), undefined);
    assert.equal(missingOnHost('stable', '203.0.113.10', probe(['systemd 252 is built without its BPF framework'])), undefined);
  });
});

describe('missingOnHost and the systemd version', () => {
  const capacity = { memoryTotalBytes: null, memoryAvailableBytes: null, rootFreeBytes: null, rootFreeInodes: null, agents: null, freePorts: null, freeAccountIds: null };
  const old = { name: 'systemd-version', ok: false, detail: 'systemd 247 is older than 249, the first that knows every directive of the gateway units (SocketBindAllow=/SocketBindDeny=)' };

  it("refuses a host whose systemd predates the units' directives as a permanent host requirement naming the host and the version", () => {
    const error = missingOnHost('legacy', '203.0.113.11', {
      checks: [{ name: 'systemctl', ok: true }, old],
      nodeVersion: 'v24.1.0',
      hostname: 'h',
      socketBindMissing: [],
      ipAddressDenyMissing: [],
      capacity,
    });
    assert.ok(error instanceof ComputeError);
    assert.equal(error.code, 'host-requirement');
    assert.equal(error.failure, 'permanent');
    assert.equal(error.message, `host "legacy" (203.0.113.11) is missing: systemd-version (${old.detail})`);
  });
});

describe('linkLocalWarning', () => {
  const capacity = { memoryTotalBytes: null, memoryAvailableBytes: null, rootFreeBytes: null, rootFreeInodes: null, agents: null, freePorts: null, freeAccountIds: null };
  const probe = (ipAddressDenyMissing: string[]) => ({ checks: [{ name: 'systemctl', ok: true }], nodeVersion: 'v24.1.0', hostname: 'h', socketBindMissing: [], ipAddressDenyMissing, capacity });
  const missing = ['/sys/fs/cgroup is not the unified cgroup v2 hierarchy (a tmpfs of cgroup v1 hierarchies: hybrid or legacy layout)'];

  it('warns with a stable code, naming the host, what is missing and the metadata service a gateway can then reach', () => {
    const warning = linkLocalWarning('stable', '203.0.113.10', probe(missing), false);
    assert.equal(warning?.code, LINK_LOCAL_NOT_DENIED);
    assert.equal(warning.code, 'LINK_LOCAL_NOT_DENIED');
    assert.deepEqual(Object.keys(warning).sort(), ['code', 'message'], "exactly OCC's ComputePreflightWarning");
    assert.match(warning.message, /^host "stable" \(203\.0\.113\.10\) cannot enforce the gateway units' IPAddressDeny=169\.254\.0\.0\/16 fe80::\/10: \/sys\/fs\/cgroup is not the unified/);
    assert.match(warning.message, /169\.254\.169\.254/);
  });

  it('says nothing for a host that can enforce it, nor where the Installation allows link-local, and never fails', () => {
    assert.equal(linkLocalWarning('stable', '203.0.113.10', probe([]), false), undefined);
    assert.equal(linkLocalWarning('stable', '203.0.113.10', probe(missing), true), undefined);
    assert.equal(missingOnHost('stable', '203.0.113.10', probe(missing)), undefined);
  });
});
