// Layout of the harness's work directory: images, keys, address slots and per-host state.
import path from 'node:path';

const DEFAULT_DIR = '/var/tmp/occ-ssh-testhosts';

/** The work dir; overlay mount options are comma/colon separated, so those characters are refused. */
export function workDir(): string {
  const dir = process.env['OCC_TESTHOSTS_DIR'] || DEFAULT_DIR;
  if (!path.isAbsolute(dir) || /[,:\s\\]/.test(dir)) {
    throw new Error(`OCC_TESTHOSTS_DIR must be an absolute path without commas, colons or spaces: ${dir}`);
  }
  return path.normalize(dir);
}

/**
 * Address slots are machine-wide, not per work dir: addresses, netns and veth names live in the
 * one kernel, so two work dirs (OCC_TESTHOSTS_DIR) must never hand out the same slot.
 */
const MACHINE_SLOTS_DIR = '/run/occ-testhosts/slots';

export const layout = {
  debCache: () => path.join(workDir(), 'cache', 'debs'),
  npmCache: () => path.join(workDir(), 'cache', 'npm'),
  nodes: () => path.join(workDir(), 'nodes'),
  images: () => path.join(workDir(), 'images'),
  rootfsParent: () => path.join(workDir(), 'rootfs'),
  keys: () => path.join(workDir(), 'keys'),
  slots: () => MACHINE_SLOTS_DIR,
  hosts: () => path.join(workDir(), 'hosts'),
  locks: () => path.join(workDir(), 'locks'),
  hostDir: (name: string) => path.join(workDir(), 'hosts', name),
};

/** Short names keep `ve-<name>` within the kernel's 15-character interface name limit. */
export const HOST_NAME_PATTERN = /^[a-z][a-z0-9-]{0,11}$/;

export function assertHostName(name: string): void {
  if (!HOST_NAME_PATTERN.test(name)) {
    throw new Error(`host name must match ${HOST_NAME_PATTERN} (veth names are limited to 15 chars): ${name}`);
  }
}

/** Names of the kernel objects a host owns; all derive from its name so reap can find them. */
export function hostObjects(name: string) {
  return {
    netns: `occth-${name}`,
    veth: `ve-${name}`,
    cgroup: path.join('occ-testhosts', name),
  };
}

/** Host I lives at 10.213.I.2; the machine side of its veth is 10.213.I.1 (a /30 each). */
export function addressesFor(index: number): { machine: string; host: string } {
  if (!Number.isInteger(index) || index < 1 || index > 254) throw new Error(`slot index out of range: ${index}`);
  return { machine: `10.213.${index}.1`, host: `10.213.${index}.2` };
}

export const HOST_PATHS = {
  nodePath: '/usr/local/bin/node',
  openclawPath: '/opt/openclaw/node_modules/openclaw/openclaw.mjs',
  fixtureGatewayPath: '/opt/fixture-gateway/gateway.cjs',
} as const;
