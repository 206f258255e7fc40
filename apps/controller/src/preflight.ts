// Startup checks: the two local SSH files, then a read-only probe of every configured host.
import { lstatSync } from 'node:fs';
import { ComputeError, type ProbeResult } from '@occ-ssh/protocol';
import type { SshComputeConfiguration } from './config/index.js';

const SSH_KEY = 'drivers.compute.configuration.ssh';

/** Security: the identity must be a regular file that only its owner can read. */
export function checkLocalSshFiles(config: SshComputeConfiguration): void {
  const files = [
    { key: `${SSH_KEY}.identityFile`, path: config.ssh.identityFile, private: true },
    { key: `${SSH_KEY}.knownHostsFile`, path: config.ssh.knownHostsFile, private: false },
  ];
  for (const file of files) {
    let stat;
    try {
      stat = lstatSync(file.path);
    } catch {
      throw new ComputeError('configuration', `${file.key}: ${file.path} does not exist or cannot be read`, { key: file.key, path: file.path });
    }
    if (!stat.isFile()) throw new ComputeError('configuration', `${file.key}: ${file.path} is not a regular file`, { key: file.key, path: file.path });
    if (file.private && (stat.mode & 0o077) !== 0) {
      throw new ComputeError('configuration', `${file.key}: ${file.path} is readable by group or others (mode ${(stat.mode & 0o777).toString(8)}); chmod 600 it`, { key: file.key, path: file.path });
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
