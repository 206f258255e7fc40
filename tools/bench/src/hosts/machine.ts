// What the machine says about the controller process and the hosts' links: load, CPU, memory, bytes.
import { collect } from '@occ-ssh/ssh-client';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

export interface LoadAverage {
  at: string;
  one: number;
  five: number;
  fifteen: number;
}

export function loadAverage(): LoadAverage {
  const [one, five, fifteen] = loadavg().map((value) => Math.round(value * 100) / 100);
  return { at: new Date().toISOString(), one: one ?? 0, five: five ?? 0, fifteen: fifteen ?? 0 };
}

/** Bytes through the machine side of a test host's veth (`ve-<name>`): tx goes to the host. */
export function linkBytes(hostName: string): { tx: number; rx: number } {
  const read = (which: string) => Number(readFileSync(`/sys/class/net/ve-${hostName}/statistics/${which}_bytes`, 'utf8').trim());
  return { tx: read('tx'), rx: read('rx') };
}

/** CPU time (ms) every process of a test host has used: its cgroup2 cpu.stat (kept without the cpu controller). */
export function hostCpuMs(hostName: string): number {
  const text = readFileSync(`/sys/fs/cgroup/unified/occ-testhosts/${hostName}/cpu.stat`, 'utf8');
  const match = /^usage_usec (\d+)$/m.exec(text);
  if (!match) throw new Error(`no usage_usec in the cpu.stat of test host ${hostName}`);
  return Number(match[1]) / 1000;
}

/** A system value from getconf, or the usual Linux value where it cannot say. */
async function getconf(name: string, fallback: number): Promise<number> {
  const value = Number((await collect('getconf', [name], { timeoutMs: 10_000 })).stdout.trim());
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
const CLOCK_TICK_HZ = await getconf('CLK_TCK', 100);
const PAGE_BYTES = await getconf('PAGESIZE', 4096);

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** user + system CPU of the process itself, ms */
  cpuMs: number;
  /** user + system CPU of its waited-for children, ms */
  childCpuMs: number;
  rssBytes: number;
}

function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is parenthesised and may contain spaces: parse after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const num = (index: number) => Number(fields[index - 3]);
  const tick = 1000 / CLOCK_TICK_HZ;
  const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  return { pid, ppid: num(4), comm, cpuMs: (num(14) + num(15)) * tick, childCpuMs: (num(16) + num(17)) * tick, rssBytes: num(24) * PAGE_BYTES };
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^[0-9]+$/.test(name))
    .map(Number);
}

/**
 * The controller side of the transport: this process, its live `ssh` descendants (clients), and
 * daemonised ssh masters whose command line names `marker` (the private TMPDIR of this run, where
 * the openssh-mux transport puts its control sockets). The test hosts are descendants too (their
 * systemd-nspawn is started by this process): those subtrees are skipped.
 */
export interface ControllerFootprint {
  /** This process: user + system CPU, ms. */
  selfCpuMs: number;
  /** Children already waited for (finished ssh clients), ms. */
  reapedChildCpuMs: number;
  /** Live descendants and masters, ms. */
  liveOthersCpuMs: number;
  selfRssBytes: number;
  othersRssBytes: number;
  heapUsedBytes: number;
  othersCount: number;
}

export function controllerFootprint(marker: string): ControllerFootprint {
  const pids = allPids();
  const stats = new Map<number, ProcStat>();
  for (const pid of pids) {
    const stat = procStat(pid);
    if (stat) stats.set(pid, stat);
  }
  const self = stats.get(process.pid);
  const descendants = new Set<number>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const stat of stats.values()) {
      if (stat.pid === process.pid || descendants.has(stat.pid) || stat.comm === 'systemd-nspawn') continue;
      if (stat.ppid === process.pid || descendants.has(stat.ppid)) {
        descendants.add(stat.pid);
        grew = true;
      }
    }
  }
  const others = new Set([...descendants].filter((pid) => stats.get(pid)?.comm === 'ssh'));
  for (const pid of pids) {
    if (others.has(pid) || pid === process.pid || stats.get(pid)?.comm !== 'ssh') continue;
    if (cmdline(pid).includes(marker)) others.add(pid);
  }
  let liveOthersCpuMs = 0;
  let othersRssBytes = 0;
  for (const pid of others) {
    const stat = stats.get(pid);
    if (!stat) continue;
    liveOthersCpuMs += stat.cpuMs;
    othersRssBytes += stat.rssBytes;
  }
  const memory = process.memoryUsage();
  return {
    selfCpuMs: self ? self.cpuMs : 0,
    reapedChildCpuMs: self ? self.childCpuMs : 0,
    liveOthersCpuMs,
    selfRssBytes: memory.rss,
    othersRssBytes,
    heapUsedBytes: memory.heapUsed,
    othersCount: others.size,
  };
}
