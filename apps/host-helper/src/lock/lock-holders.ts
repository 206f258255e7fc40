// Which root processes hold or wait for a flock on a file: an older helper mid-operation on the
// legacy lock file, which the helper must wait for before it replaces that file.
import * as fs from 'node:fs';

export interface FlockEntry {
  pid: number;
  inode: bigint;
  waiting: boolean;
}

/** The flock(2) entries of /proc/locks (POSIX and OFD locks never conflict with them). */
export function parseLocks(text: string): FlockEntry[] {
  const entries: FlockEntry[] = [];
  for (const line of text.split('\n')) {
    const match = /^\d+:\s+(->\s+)?FLOCK\s+\S+\s+\S+\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
    if (match) entries.push({ pid: Number(match[2]), inode: BigInt(match[3]!), waiting: match[1] !== undefined });
  }
  return entries;
}

/** Real and effective uid of a live process from its status file; null once it is gone. */
export function uidsOf(statusText: string): [number, number] | null {
  const match = /^Uid:\s+(\d+)\s+(\d+)/m.exec(statusText);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

function readOrEmpty(path: string): string {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Whether the process has a descriptor open on exactly this file (device and inode). */
function hasOpen(pid: number, file: fs.BigIntStats): boolean {
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      const target = fs.statSync(`/proc/${pid}/fd/${fd}`, { bigint: true });
      return target.dev === file.dev && target.ino === file.ino;
    } catch {
      return false;
    }
  });
}

/**
 * The pids of root processes holding, or queued for, a flock on `file`. Security: a tenant's lock is
 * never waited for, and /proc/locks alone is not trusted: its pid is whoever took the lock, which may
 * have exited and been reused, so the process must be root (real and effective uid 0) and have the
 * file open itself. The device column is not compared (an overlay reports another one); the open
 * descriptor's stat is.
 */
export function rootLockers(file: fs.BigIntStats): number[] {
  const pids = new Set(
    parseLocks(readOrEmpty('/proc/locks'))
      .filter((entry) => entry.inode === file.ino)
      .map((entry) => entry.pid),
  );
  return [...pids].filter((pid) => {
    const uids = uidsOf(readOrEmpty(`/proc/${pid}/status`));
    return uids !== null && uids[0] === 0 && uids[1] === 0 && hasOpen(pid, file);
  });
}
