// Installs the machine-side tools the harness needs, with apt-get, only when one is missing.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { withLock } from './claims.js';
import { log, mustRun } from './command.js';
import { layout } from './paths.js';
import { selfRef } from './process-identity.js';

/** Each tool the harness runs, and the Debian package that provides it. */
const MACHINE_TOOLS: ReadonlyArray<readonly [tool: string, pkg: string]> = [
  ['debootstrap', 'debootstrap'],
  ['systemd-nspawn', 'systemd-container'],
  ['zstd', 'zstd'],
  ['tar', 'tar'],
  ['ip', 'iproute2'],
  ['ssh', 'openssh-client'],
  ['ssh-keygen', 'openssh-client'],
  ['mount', 'mount'],
  ['umount', 'mount'],
];

function onPath(tool: string, searchPath = process.env['PATH'] ?? ''): boolean {
  const dirs = [...searchPath.split(':'), '/usr/sbin', '/sbin', '/usr/bin', '/bin'].filter(Boolean);
  return dirs.some((dir) => {
    try {
      accessSync(path.join(dir, tool), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function missingPackages(): string[] {
  return [...new Set(MACHINE_TOOLS.filter(([tool]) => !onPath(tool)).map(([, pkg]) => pkg))];
}

/** Several test processes may find a tool missing at once; dpkg allows one installer, so they queue. */
export async function ensureMachinePackages(): Promise<void> {
  if (missingPackages().length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`test hosts need root; missing machine packages: ${missingPackages().join(' ')}`);
  await mkdir(layout.locks(), { recursive: true });
  await withLock(path.join(layout.locks(), 'apt'), selfRef(), async () => {
    const missing = missingPackages();
    if (missing.length === 0) return;
    log(`installing machine packages: ${missing.join(' ')}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    await mustRun('apt-get', ['update', '-qq'], { env });
    await mustRun('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
  });
}
