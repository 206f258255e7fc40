// CPU time of one command and everything it starts, test hosts included: the command runs in a
// cgroup of its own in the cpuacct hierarchy (cgroup v1, as on the CI machine), beneath the caller's,
// so a phase's figure includes its pool's files. Wall time on a saturated machine says how long a
// file waited for the CPU; this says what it cost, which is what the pool and the phases share.
// Where there is no cpuacct hierarchy to write to, nothing is measured and the command runs as given.
import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import path from 'node:path';

const CPUACCT = '/sys/fs/cgroup/cpuacct';

export interface CpuAccount {
  /** The command to run instead: it joins the cgroup, then becomes the command (no shell word from input). */
  command: string;
  args: string[];
  /** CPU seconds used so far by every process that was in the cgroup. */
  seconds(): number;
  /** Removes the cgroup once its processes are gone; a straggler leaves it in place. */
  remove(): void;
}

/** The caller's own cgroup in the cpuacct hierarchy, from /proc/self/cgroup. */
export function ownCpuacctPath(procCgroup: string): string | undefined {
  for (const line of procCgroup.split('\n')) {
    const [, controllers, cgroupPath] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers !== undefined && controllers.split(',').includes('cpuacct')) return cgroupPath;
  }
  return undefined;
}

/** The command wrapped to run in a new cgroup named after `name`, or undefined where none can be made. */
export function cpuAccount(name: string, command: string, args: readonly string[]): CpuAccount | undefined {
  if (!existsSync(path.join(CPUACCT, 'cpuacct.usage'))) return undefined;
  const own = ownCpuacctPath(readFileSync('/proc/self/cgroup', 'utf8'));
  if (own === undefined) return undefined;
  const dir = path.join(CPUACCT, own, `${name.replace(/[^\w.-]+/g, '_')}-${process.pid}-${Date.now()}`);
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  return {
    // $0 is the cgroup's procs file; the shell writes its own PID there and execs the command.
    command: '/bin/sh',
    args: ['-c', 'echo $$ > "$0" && exec "$@"', path.join(dir, 'cgroup.procs'), command, ...args],
    seconds: () => Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e9,
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        // a process still in it: the figure was read already, the empty group costs nothing
      }
    },
  };
}
