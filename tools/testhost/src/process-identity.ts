// Identifies processes by pid plus start time, so a recycled pid is never mistaken for ours.
import { readFileSync } from 'node:fs';

export interface ProcessRef {
  pid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  start: number;
}

function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may contain spaces; fields are counted after its closing paren.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(rest[19]);
    const state = rest[0];
    if (state === 'Z' || state === 'X') return undefined;
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

export function selfRef(): ProcessRef {
  const start = processStart(process.pid);
  if (start === undefined) throw new Error('cannot read own /proc entry');
  return { pid: process.pid, start };
}

export function refOf(pid: number): ProcessRef | undefined {
  const start = processStart(pid);
  return start === undefined ? undefined : { pid, start };
}

export function isAlive(ref: ProcessRef | undefined): boolean {
  return ref !== undefined && processStart(ref.pid) === ref.start;
}

export function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return [];
  }
}

/** True only for the systemd-nspawn we launched for this host (same start time, root dir and machine name). */
export function isOurNspawn(ref: ProcessRef | undefined, rootDir: string, machine: string): boolean {
  if (!ref || !isAlive(ref)) return false;
  const argv = cmdline(ref.pid);
  const exe = argv[0]?.split('/').pop();
  const valueOf = (flag: string) => argv[argv.indexOf(flag) + 1];
  return exe === 'systemd-nspawn' && argv.includes('-D') && valueOf('-D') === rootDir && valueOf('-M') === machine;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocking sleep for the synchronous teardown path. */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
