// The pure facts behind the probe's socketBindMissing: systemctl --version, the cgroup file system and the kernel configuration.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cgroupMissing, kernelMissing, parseSystemctlVersion, systemdMissing, systemdVersionCheck } from './socket-bind.js';

/** Debian 12's systemd, as the test hosts carry it. */
const DEBIAN_12 = `systemd 252 (252.39-1~deb12u2)
+PAM +AUDIT +SELINUX +APPARMOR +IMA +SMACK +SECCOMP +GCRYPT -GNUTLS +OPENSSL +ACL +BLKID +CURL +ELFUTILS +FIDO2 +IDN2 -IDN +IPTC +KMOD +LIBCRYPTSETUP +LIBFDISK +PCRE2 -PWQUALITY +P11KIT +QRENCODE +TPM2 +BZIP2 +LZ4 +XZ +ZLIB +ZSTD -BPF_FRAMEWORK -XKBCOMMON +UTMP +SYSVINIT default-hierarchy=unified
`;
/** A build with the BPF framework (feature list shortened). */
const WITH_BPF = 'systemd 257 (257.9)\n+PAM +AUDIT +SECCOMP +OPENSSL +BPF_FRAMEWORK +BTF -XKBCOMMON +SYSVINIT\n';

describe('parseSystemctlVersion and systemdMissing', () => {
  it('reads the version and whether the BPF framework is built in', () => {
    assert.deepEqual(parseSystemctlVersion(DEBIAN_12), { version: 252, bpfFramework: false });
    assert.deepEqual(parseSystemctlVersion(WITH_BPF), { version: 257, bpfFramework: true });
  });

  it('names a build without the BPF framework, one older than SocketBindAllow=, and unreadable output', () => {
    assert.equal(systemdMissing(parseSystemctlVersion(DEBIAN_12)), 'systemd 252 is built without its BPF framework (-BPF_FRAMEWORK in systemctl --version)');
    assert.equal(systemdMissing(parseSystemctlVersion(WITH_BPF)), undefined);
    assert.equal(systemdMissing(parseSystemctlVersion('systemd 247 (247.3-7)\n+PAM +AUDIT -BPF_FRAMEWORK\n')), 'systemd 247 predates SocketBindAllow= (systemd 249)');
    assert.match(systemdMissing(parseSystemctlVersion('not systemd\n')) ?? '', /could not be read/);
    assert.match(systemdMissing(undefined) ?? '', /could not be read/);
  });

  it("passes the systemd-version check from 249 on and fails an older or unreadable systemd, naming the floor's directive", () => {
    assert.deepEqual(systemdVersionCheck(parseSystemctlVersion(DEBIAN_12)), { name: 'systemd-version', ok: true, detail: 'systemd 252' });
    assert.deepEqual(systemdVersionCheck(parseSystemctlVersion(WITH_BPF)), { name: 'systemd-version', ok: true, detail: 'systemd 257' });
    assert.equal(systemdVersionCheck(parseSystemctlVersion('systemd 249 (249.11-0ubuntu3)\n+PAM\n')).ok, true);
    assert.deepEqual(systemdVersionCheck(parseSystemctlVersion('systemd 247 (247.3-7+deb11u6)\n+PAM +AUDIT -BPF_FRAMEWORK\n')), {
      name: 'systemd-version',
      ok: false,
      detail: 'systemd 247 is older than 249, the first that knows every directive of the gateway units (SocketBindAllow=/SocketBindDeny=)',
    });
    assert.deepEqual(systemdVersionCheck(undefined), { name: 'systemd-version', ok: false, detail: 'the systemd version could not be read from systemctl --version' });
  });

  it('takes only the exact +BPF_FRAMEWORK token, not a longer name or one in the version line', () => {
    assert.equal(parseSystemctlVersion('systemd 256 (256)\n+BPF_FRAMEWORKS -BPF_FRAMEWORK\n').bpfFramework, false);
    assert.equal(parseSystemctlVersion('systemd 256 (+BPF_FRAMEWORK)\n-BPF_FRAMEWORK\n').bpfFramework, false);
    assert.equal(parseSystemctlVersion('systemd 256 (256)\n+BPF_FRAMEWORK\n').bpfFramework, true);
  });
});

describe('cgroupMissing', () => {
  it('accepts only cgroup2 at /sys/fs/cgroup and names hybrid or legacy tmpfs, anything else and an unreadable mount', () => {
    assert.equal(cgroupMissing(0x63677270), undefined);
    assert.equal(cgroupMissing(0x01021994), '/sys/fs/cgroup is not the unified cgroup v2 hierarchy (a tmpfs of cgroup v1 hierarchies: hybrid or legacy layout)');
    assert.equal(cgroupMissing(0x27e0eb), '/sys/fs/cgroup is not the unified cgroup v2 hierarchy (file system type 0x27e0eb)');
    assert.equal(cgroupMissing(undefined), '/sys/fs/cgroup could not be examined');
  });
});

describe('kernelMissing', () => {
  it('names a configuration without CONFIG_CGROUP_BPF=y; says nothing when no configuration could be read', () => {
    assert.equal(kernelMissing({ text: 'CONFIG_BPF_SYSCALL=y\nCONFIG_CGROUP_BPF=y\n', source: '/proc/config.gz' }), undefined);
    assert.equal(
      kernelMissing({ text: 'CONFIG_BPF_SYSCALL=y\n# CONFIG_CGROUP_BPF is not set\n', source: '/boot/config-6.1.0' }),
      'the kernel is built without cgroup BPF (no CONFIG_CGROUP_BPF=y in /boot/config-6.1.0)',
    );
    assert.match(kernelMissing({ text: 'CONFIG_CGROUP_BPF=m\n', source: '/proc/config.gz' }) ?? '', /without cgroup BPF/);
    assert.equal(kernelMissing(undefined), undefined);
  });
});
