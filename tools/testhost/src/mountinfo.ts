// Reads /proc/self/mountinfo: which paths are mounted, and where the cgroup hierarchies live.
import { readFileSync } from 'node:fs';

export interface MountEntry {
  mountPoint: string;
  fsType: string;
  source: string;
  superOptions: string[];
}

/** mountinfo escapes space, tab, newline and backslash as \ooo octal. */
const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

export function parseMountinfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const mountPoint = left.split(' ')[4];
    const [fsType, source, opts] = right.split(' ');
    if (!mountPoint || !fsType) continue;
    entries.push({ mountPoint: unescape(mountPoint), fsType, source: source ?? '', superOptions: (opts ?? '').split(',') });
  }
  return entries;
}

export function currentMounts(): MountEntry[] {
  return parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
}

export function isMounted(dir: string): boolean {
  return currentMounts().some((m) => m.mountPoint === dir);
}

/**
 * Hierarchies a launcher must join to get a cgroup of its own: the named v1 `systemd` hierarchy
 * and the v2 one (at /sys/fs/cgroup on a pure-v2 machine, or /sys/fs/cgroup/unified on a hybrid),
 * and the v1 `memory` and `pids` ones, so that a host's memory and task limits stay its own.
 */
export function cgroupRoots(mounts: readonly MountEntry[]): string[] {
  const v1 = (m: MountEntry) => m.fsType === 'cgroup' && m.superOptions.some((o) => o === 'name=systemd' || o === 'memory' || o === 'pids');
  const roots = mounts.filter((m) => m.fsType === 'cgroup2' || v1(m)).map((m) => m.mountPoint);
  return [...new Set(roots)];
}
