// Startup checks: the two local SSH files, then a read-only probe of every configured host.
import { realpathSync, statSync, type Stats } from 'node:fs';
import { ComputeError, type ProbeResult } from '@occ-ssh/protocol';
import type { SshComputeConfiguration } from './config/index.js';
import type { ComputePreflightWarning } from './types.js';

const SSH_KEY = 'drivers.compute.configuration.ssh';

/**
 * Security: each file, after any symbolic links (Kubernetes mounts Secret files as links into a
 * `..data` directory), must be a regular file owned by this process's user or root. Nobody else
 * may read the identity, and nobody else may write the known_hosts file (a planted host key).
 */
export function checkLocalSshFiles(config: SshComputeConfiguration): void {
  const files = [
    { key: `${SSH_KEY}.identityFile`, path: config.ssh.identityFile, forbidden: 0o077, fix: 'readable by group or others', chmod: '600' },
    { key: `${SSH_KEY}.knownHostsFile`, path: config.ssh.knownHostsFile, forbidden: 0o022, fix: 'writable by group or others', chmod: '644' },
  ];
  for (const file of files) {
    const refuse = (reason: string) => new ComputeError('configuration', `${file.key}: ${file.path} ${reason}`, { key: file.key, path: file.path });
    let target: string;
    let stat: Stats;
    try {
      target = realpathSync(file.path);
      stat = statSync(target);
    } catch {
      throw refuse('does not exist or cannot be read');
    }
    const via = target === file.path ? '' : ` (through links to ${target})`;
    if (!stat.isFile()) throw refuse(`is not a regular file${via}`);
    const uid = process.geteuid?.() ?? stat.uid;
    if (stat.uid !== uid && stat.uid !== 0) throw refuse(`is owned by uid ${stat.uid}, not by this process's user (${uid}) or root${via}`);
    if ((stat.mode & file.forbidden) !== 0) {
      throw refuse(`is ${file.fix} (mode ${(stat.mode & 0o777).toString(8)})${via}; chmod ${file.chmod} it`);
    }
  }
}

/** Names exactly what a probed host is missing. */
export function missingOnHost(hostName: string, address: string, probe: ProbeResult): ComputeError | undefined {
  const missing = probe.checks.filter((check) => !check.ok);
  if (missing.length === 0) return undefined;
  const list = missing.map((check) => `${check.name} (${check.detail ?? 'missing'})`).join(', ');
  return new ComputeError('host-requirement', `host "${hostName}" (${address}) is missing: ${list}`, { host: hostName, operation: 'probe' });
}

/** The stable code of the warning for a host whose systemd does not enforce SocketBindAllow=/SocketBindDeny=. */
export const SOCKET_BIND_NOT_ENFORCED = 'SOCKET_BIND_NOT_ENFORCED';

/**
 * A probed host that cannot enforce its gateway units' port rules still runs gateways, so this is
 * a warning, never a failure: the operator learns which protection stands alone there.
 */
export function socketBindWarning(hostName: string, address: string, probe: ProbeResult): ComputePreflightWarning | undefined {
  if (probe.socketBindMissing.length === 0) return undefined;
  return {
    code: SOCKET_BIND_NOT_ENFORCED,
    message:
      `host "${hostName}" (${address}) cannot enforce the gateway units' SocketBindAllow=/SocketBindDeny=: ${probe.socketBindMissing.join('; ')}. ` +
      "A gateway there can bind ports other than its own; the readiness check's listener-ownership test (every listener on an Agent's port belongs to its account and unit) then stands alone.",
  };
}

/** The stable code of the warning for a host that cannot enforce the gateway units' link-local IPAddressDeny=. */
export const LINK_LOCAL_NOT_DENIED = 'LINK_LOCAL_NOT_DENIED';

/** A warning, never a failure, like the port rules': and none where the Installation allows link-local anyway. */
export function linkLocalWarning(hostName: string, address: string, probe: ProbeResult, allowLinkLocal: boolean): ComputePreflightWarning | undefined {
  if (allowLinkLocal || probe.ipAddressDenyMissing.length === 0) return undefined;
  return {
    code: LINK_LOCAL_NOT_DENIED,
    message:
      `host "${hostName}" (${address}) cannot enforce the gateway units' IPAddressDeny=169.254.0.0/16 fe80::/10: ${probe.ipAddressDenyMissing.join('; ')}. ` +
      'A gateway there can reach link-local addresses, the cloud metadata service (169.254.169.254) among them; block it on the host or in the cloud (docs/hardening.md).',
  };
}

/** Below these a host is low for one more real gateway (about 1 GB of RSS measured, docs/operations.md). */
export const CAPACITY_WARNING_FLOORS = { memoryAvailableBytes: 1536 * 1024 * 1024, rootFreeBytes: 2 * 1024 * 1024 * 1024, rootFreeInodes: 10_000 } as const;

export const CAPACITY_WARNING_CODES = { memory: 'HOST_MEMORY_LOW', disk: 'HOST_DISK_LOW', inodes: 'HOST_INODES_LOW', ports: 'GATEWAY_PORTS_EXHAUSTED', accounts: 'AGENT_ACCOUNTS_EXHAUSTED' } as const;

const mib = (bytes: number) => `${Math.floor(bytes / 1024 / 1024)} MiB`;

/**
 * Warnings, never failures: a host low on memory, disk, inodes, ports or account IDs still serves the
 * Agents it has; prepare refuses a new Agent only when its port, disk or account IDs are really missing.
 */
export function capacityWarnings(hostName: string, address: string, probe: ProbeResult): ComputePreflightWarning[] {
  const { memoryAvailableBytes: memory, rootFreeBytes: disk, rootFreeInodes: inodes, freePorts, agents, freeAccountIds } = probe.capacity;
  const at = `host "${hostName}" (${address})`;
  const floors = CAPACITY_WARNING_FLOORS;
  const warnings: ComputePreflightWarning[] = [];
  if (memory !== null && memory < floors.memoryAvailableBytes) {
    warnings.push({ code: CAPACITY_WARNING_CODES.memory, message: `${at} has ${mib(memory)} of memory available, less than the ${mib(floors.memoryAvailableBytes)} another gateway needs` });
  }
  if (disk !== null && disk < floors.rootFreeBytes) {
    warnings.push({ code: CAPACITY_WARNING_CODES.disk, message: `${at} has ${mib(disk)} free on the disk under the root, less than ${mib(floors.rootFreeBytes)}` });
  }
  if (inodes !== null && inodes < floors.rootFreeInodes) {
    warnings.push({ code: CAPACITY_WARNING_CODES.inodes, message: `${at} has ${inodes} free inodes on the disk under the root, fewer than ${floors.rootFreeInodes}` });
  }
  if (freePorts === 0) {
    warnings.push({ code: CAPACITY_WARNING_CODES.ports, message: `${at} has no free port left in the gateway port range (${agents ?? 'unknown'} Agents): prepare refuses a new Agent there` });
  }
  if (freeAccountIds === 0) {
    warnings.push({
      code: CAPACITY_WARNING_CODES.accounts,
      message: `${at} has no free UID or GID left for another Agent account (${agents ?? 'unknown'} Agents): prepare refuses a new Agent there; runtime.accountIdRange can give accounts a larger range`,
    });
  }
  return warnings;
}
