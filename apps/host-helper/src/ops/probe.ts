// probe: what the driver needs on a host, checked read-only and without the lock.
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { hostname } from 'node:os';
import { sandboxHiddenProblem, type OperationResult } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { hostCapacity } from '../gateway/capacity.js';
import { accountIdsLeft } from '../accounts/account-ids.js';
import { ipAddressDenyMissing, socketBindMissing, systemdBuild, systemdVersionCheck } from '../systemd/socket-bind.js';

const TOOLS = ['flock', 'getent', 'useradd', 'userdel', 'groupdel'] as const;
const PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

function onPath(name: string): string | undefined {
  for (const dir of PATH_DIRS) {
    try {
      accessSync(`${dir}/${name}`, constants.X_OK);
      return `${dir}/${name}`;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

function fileCheck(name: string, path: string, mode: number, what: string) {
  try {
    if (!statSync(path).isFile()) return { name, ok: false, detail: `${path} is not a regular file` };
    accessSync(path, mode);
    return { name, ok: true, detail: path };
  } catch {
    return { name, ok: false, detail: `${path} is missing or not ${what}` };
  }
}

/** OpenClaw's gateway needs Node.js 24 (the helper is tested on the hosts' 24 and 26), so this is a host requirement. */
function nodeVersionCheck() {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= 24 ? { name: 'node-version', ok: true, detail: process.version } : { name: 'node-version', ok: false, detail: `Node.js ${process.version} is older than 24` };
}

/**
 * systemctl on PATH and systemd running as init: /run/systemd/system exists only then (the test
 * sd_booted(3) makes). Read from the file system, so the probe starts no process.
 */
function systemdCheck() {
  const systemctl = onPath('systemctl');
  if (!systemctl) return { name: 'systemctl', ok: false, detail: 'systemctl is not on PATH' };
  try {
    if (statSync('/run/systemd/system').isDirectory()) return { name: 'systemctl', ok: true, detail: `${systemctl}; systemd is the init system` };
  } catch {
    // not booted with systemd
  }
  return { name: 'systemctl', ok: false, detail: `${systemctl} exists but systemd is not the init system (no /run/systemd/system)` };
}

/** The real path; for a path not created yet (the root), its nearest existing ancestor's, plus the rest. */
function resolved(path: string): string {
  let existing = path;
  let rest = '';
  for (;;) {
    try {
      return rest ? join(realpathSync(existing), rest) : realpathSync(existing);
    } catch {
      if (existing === '/') return path;
      rest = rest ? join(basename(existing), rest) : basename(existing);
      existing = dirname(existing);
    }
  }
}

/**
 * A configured path may be a link into a directory the gateway unit's sandbox hides (a node
 * under /home through /usr/local/bin, a root linked into /tmp): the gateway could never start.
 */
function sandboxCheck(ctx: OpContext) {
  const paths = { nodePath: ctx.runtime.nodePath, openclawPath: ctx.runtime.openclawPath, root: ctx.runtime.root };
  const hidden = Object.entries(paths).flatMap(([key, path]) => {
    const real = resolved(path);
    const problem = sandboxHiddenProblem(real);
    return problem ? [`${key} ${path}${real === path ? '' : ` (really ${real})`} ${problem}`] : [];
  });
  return hidden.length === 0 ? { name: 'sandbox-paths', ok: true } : { name: 'sandbox-paths', ok: false, detail: hidden.join('; ') };
}

export async function probe(ctx: OpContext): Promise<OperationResult<'probe'>> {
  const systemd = await systemdBuild(ctx.runner);
  const checks = [
    systemdCheck(),
    systemdVersionCheck(systemd),
    ...TOOLS.map((tool) => {
      const found = onPath(tool);
      return found ? { name: tool, ok: true, detail: found } : { name: tool, ok: false, detail: `${tool} is not on PATH` };
    }),
    fileCheck('node', ctx.runtime.nodePath, constants.X_OK, 'executable'),
    nodeVersionCheck(),
    fileCheck('openclaw', ctx.runtime.openclawPath, constants.R_OK, 'readable'),
    sandboxCheck(ctx),
  ];
  // Not a check: a host that cannot enforce SocketBind* or IPAddressDeny= still runs gateways, and preflight warns.
  return {
    checks,
    nodeVersion: process.version,
    hostname: hostname(),
    socketBindMissing: socketBindMissing(systemd),
    ipAddressDenyMissing: ipAddressDenyMissing(),
    capacity: { ...hostCapacity(ctx), freeAccountIds: accountIdsLeft(ctx.runtime) },
  };
}
