// Whether systemd on this host enforces the SocketBindAllow=/SocketBindDeny= lines every gateway
// unit carries. It enforces them with a cgroup BPF program (bind4/bind6), which needs its BPF
// framework built in, the unified cgroup v2 hierarchy and a kernel with cgroup BPF. Without any of
// them systemd accepts the lines, lists them in `systemctl show`, logs nothing and enforces nothing.
// Read-only and bounded: one `systemctl --version` with a timeout, one statfs, one small file read.
import { readFileSync, statfsSync } from 'node:fs';
import { release } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { systemctlArgv } from '../run/commands.js';
import type { HostRunner } from '../run/system.js';

const CGROUP2_SUPER_MAGIC = 0x63677270;
const TMPFS_MAGIC = 0x01021994;
/** The first systemd with SocketBindAllow=/SocketBindDeny= (and the BPF_FRAMEWORK feature flag). */
const FIRST_SOCKET_BIND_SYSTEMD = 249;
/** A kernel configuration is about 300 KiB; anything far larger is not one. */
const MAX_KERNEL_CONFIG_BYTES = 4 * 1024 * 1024;

export interface SystemdBuild {
  version: number | undefined;
  bpfFramework: boolean;
}

/** `systemctl --version`: `systemd 252 (252.39-1~deb12u2)`, then the features, `+NAME` built in and `-NAME` not. */
export function parseSystemctlVersion(text: string): SystemdBuild {
  const version = /^systemd (\d+)\b/m.exec(text)?.[1];
  return { version: version === undefined ? undefined : Number(version), bpfFramework: /(?:^|\s)\+BPF_FRAMEWORK(?=\s|$)/m.test(text) };
}

/**
 * The oldest systemd that knows every directive the gateway units carry: SocketBindAllow= and
 * SocketBindDeny= came in 249 (PrivateIPC= in 248, ProtectProc= and ProcSubset= in 247,
 * LogNamespace= in 245). Security: an older systemd logs "Unknown key name" for the ones it lacks and
 * starts the unit without them, so a gateway there would run outside the sandbox the units describe.
 */
const MINIMUM_SYSTEMD = FIRST_SOCKET_BIND_SYSTEMD;

/** The probe's `systemd-version` check: a host below MINIMUM_SYSTEMD fails preflight as a host requirement. */
export function systemdVersionCheck(build: SystemdBuild | undefined): { name: string; ok: boolean; detail: string } {
  const name = 'systemd-version';
  if (build?.version === undefined) return { name, ok: false, detail: 'the systemd version could not be read from systemctl --version' };
  if (build.version < MINIMUM_SYSTEMD) {
    return { name, ok: false, detail: `systemd ${build.version} is older than ${MINIMUM_SYSTEMD}, the first that knows every directive of the gateway units (SocketBindAllow=/SocketBindDeny=)` };
  }
  return { name, ok: true, detail: `systemd ${build.version}` };
}

/** What keeps this systemd build from enforcing the lines, or undefined. */
export function systemdMissing(build: SystemdBuild | undefined): string | undefined {
  if (build?.version === undefined) return 'the systemd version could not be read from systemctl --version';
  if (build.version < FIRST_SOCKET_BIND_SYSTEMD) return `systemd ${build.version} predates SocketBindAllow= (systemd ${FIRST_SOCKET_BIND_SYSTEMD})`;
  if (!build.bpfFramework) return `systemd ${build.version} is built without its BPF framework (-BPF_FRAMEWORK in systemctl --version)`;
  return undefined;
}

/**
 * The statfs type of /sys/fs/cgroup: cgroup2 only on the unified hierarchy. Under the hybrid or
 * legacy layout it is a tmpfs holding v1 hierarchies, and systemd's own controller is a v1 one.
 */
export function cgroupMissing(fsType: number | undefined): string | undefined {
  if (fsType === CGROUP2_SUPER_MAGIC) return undefined;
  if (fsType === undefined) return '/sys/fs/cgroup could not be examined';
  const what = fsType === TMPFS_MAGIC ? 'a tmpfs of cgroup v1 hierarchies: hybrid or legacy layout' : `file system type 0x${fsType.toString(16)}`;
  return `/sys/fs/cgroup is not the unified cgroup v2 hierarchy (${what})`;
}

/** The kernel's build configuration, when one could be read: cgroup BPF is CONFIG_CGROUP_BPF=y. */
export function kernelMissing(config: { text: string; source: string } | undefined): string | undefined {
  if (!config || /^CONFIG_CGROUP_BPF=y$/m.test(config.text)) return undefined;
  return `the kernel is built without cgroup BPF (no CONFIG_CGROUP_BPF=y in ${config.source})`;
}

function kernelConfig(): { text: string; source: string } | undefined {
  const sources = [
    { source: '/proc/config.gz', read: (bytes: Buffer) => gunzipSync(bytes, { maxOutputLength: MAX_KERNEL_CONFIG_BYTES }) },
    { source: `/boot/config-${release()}`, read: (bytes: Buffer) => bytes },
  ];
  for (const { source, read } of sources) {
    try {
      const bytes = readFileSync(source);
      if (bytes.length <= MAX_KERNEL_CONFIG_BYTES) return { text: read(bytes).toString('utf8'), source };
    } catch {
      // not there or not readable: try the next one
    }
  }
  // Neither is readable: the kernel is not named as missing, since it cannot be told.
  return undefined;
}

function cgroupType(): number | undefined {
  try {
    return Number(statfsSync('/sys/fs/cgroup').type);
  } catch {
    return undefined;
  }
}

/** `systemctl --version`, read once per probe for the version check and the port rules. */
export async function systemdBuild(runner: HostRunner): Promise<SystemdBuild | undefined> {
  const result = await runner.run(systemctlArgv({ verb: 'version' }), { timeoutMs: 5_000 }).catch(() => undefined);
  return result?.code === 0 ? parseSystemctlVersion(result.stdout) : undefined;
}

/**
 * Each reason this host cannot enforce the units' IPAddressDeny=; empty when it can. systemd builds
 * that firewall itself (no BPF framework needed), but only on the unified cgroup v2 hierarchy and a
 * kernel with cgroup BPF; elsewhere it logs that it proceeds without one and starts the unit.
 */
export function ipAddressDenyMissing(): string[] {
  return [cgroupMissing(cgroupType()), kernelMissing(kernelConfig())].filter((reason) => reason !== undefined);
}

/** Each reason this host cannot enforce SocketBindAllow=/SocketBindDeny=; empty when it can. */
export function socketBindMissing(build: SystemdBuild | undefined): string[] {
  return [systemdMissing(build), cgroupMissing(cgroupType()), kernelMissing(kernelConfig())].filter((reason) => reason !== undefined);
}
