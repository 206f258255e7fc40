// Per-host cgroup folders, so each container sees only its own units' processes.
import { mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { cgroupRoots, currentMounts } from './mountinfo.js';
import { hostObjects } from './paths.js';
import { sleepSync } from './process-identity.js';

export function hostCgroupDirs(name: string): string[] {
  return cgroupRoots(currentMounts()).map((root) => path.join(root, hostObjects(name).cgroup));
}

/** This host's own cgroups in the v1 memory and pids hierarchies, where the machine has them. */
export function resourceControllerDirs(name: string): string[] {
  return hostCgroupDirs(name).filter((dir) => /\/(memory|pids)\/occ-testhosts\//.test(dir));
}

/**
 * CPU seconds the host's processes have used so far (its unified-hierarchy cgroup's cpu.stat), or
 * undefined where the machine has none: a test run on two cores is bound by CPU, and this says
 * which hosts spent it.
 */
export function hostCpuSeconds(name: string): number | undefined {
  for (const dir of hostCgroupDirs(name)) {
    try {
      const usage = /^usage_usec (\d+)$/m.exec(readFileSync(path.join(dir, 'cpu.stat'), 'utf8'));
      if (usage) return Number(usage[1]) / 1e6;
    } catch {
      // not the unified hierarchy (v1 folders have no cpu.stat): the next one
    }
  }
  return undefined;
}

/** The folders that hold one cgroup per host, e.g. /sys/fs/cgroup/unified/occ-testhosts. */
export function cgroupParents(): string[] {
  return cgroupRoots(currentMounts()).map((root) => path.join(root, path.dirname(hostObjects('x').cgroup)));
}

export function createHostCgroups(name: string): string[] {
  const dirs = hostCgroupDirs(name);
  if (dirs.length === 0) throw new Error('no systemd or cgroup2 hierarchy is mounted on this machine');
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  return dirs;
}

/** cgroupfs folders go with rmdir only, children first; EBUSY means a process is still leaving. */
function removeTree(dir: string, keepTop: boolean): void {
  let children: string[];
  try {
    children = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  for (const child of children) removeTree(path.join(dir, child), false);
  if (keepTop) return;
  try {
    rmdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** SIGKILL to every process left in a host's cgroup tree: the host is gone, they are its leftovers. */
function killLeftovers(dir: string): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  try {
    for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  } catch {
    // no procs file at this level
  }
  for (const entry of entries) if (entry.isDirectory()) killLeftovers(path.join(dir, entry.name));
}

function removeWithRetry(dir: string, keepTop: boolean): string | undefined {
  for (let attempt = 0; ; attempt++) {
    try {
      removeTree(dir, keepTop);
      return undefined;
    } catch (e) {
      if (attempt >= 100) return `${dir}: ${(e as Error).message}`;
      // A process that ignored the shutdown (a gateway ignoring SIGTERM) keeps its cgroup busy.
      if (attempt === 20) killLeftovers(dir);
      sleepSync(50);
    }
  }
}

export function removeHostCgroups(name: string): string[] {
  return hostCgroupDirs(name).flatMap((dir) => removeWithRetry(dir, false) ?? []);
}

/** Before a reboot relaunch: the host's own folder stays, what the previous boot made inside goes. */
export function emptyHostCgroups(name: string): string[] {
  return hostCgroupDirs(name).flatMap((dir) => removeWithRetry(dir, true) ?? []);
}
