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
