// Peak load and memory while the pool runs, sampled from /proc: the figures that choose the pool's width.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

export interface MachinePeaks {
  load1: number;
  usedMemGiB: number;
  totalMemGiB: number;
}

function memory(): { used: number; total: number } {
  const info = readFileSync('/proc/meminfo', 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(info)?.[1] ?? 0);
  const total = kib('MemTotal');
  return { used: total - kib('MemAvailable'), total };
}

/** Samples every few seconds until the returned stop is called, which gives the peaks. */
export function samplePeaks(everyMs = 2000): () => MachinePeaks {
  const peaks: MachinePeaks = { load1: 0, usedMemGiB: 0, totalMemGiB: 0 };
  const sample = () => {
    const { used, total } = memory();
    peaks.load1 = Math.max(peaks.load1, loadavg()[0] ?? 0);
    peaks.usedMemGiB = Math.max(peaks.usedMemGiB, used / 1024 ** 2);
    peaks.totalMemGiB = total / 1024 ** 2;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    sample();
    return peaks;
  };
}

/** Busy and total jiffies of all CPUs together, from the first line of /proc/stat. */
export function cpuTimes(stat = readFileSync('/proc/stat', 'utf8')): { busy: number; total: number } {
  const fields = (/^cpu\s+(.*)$/m.exec(stat)?.[1] ?? '').trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the time no CPU work ran.
  const total = fields.slice(0, 8).reduce((sum, n) => sum + (Number.isFinite(n) ? n : 0), 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** The share of CPU time in use over each interval, sampled until the returned stop is called. */
export function sampleCpu(everyMs = 60_000): () => { shares: number[]; whole: number } {
  const first = cpuTimes();
  let last = first;
  const shares: number[] = [];
  const share = (a: typeof first, b: typeof first) => (b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0);
  const timer = setInterval(() => {
    const now = cpuTimes();
    shares.push(share(last, now));
    last = now;
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    return { shares, whole: share(first, cpuTimes()) };
  };
}
