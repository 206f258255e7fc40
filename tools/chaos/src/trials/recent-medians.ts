// How long each operation takes on this host right now, and how many progress lines it prints:
// the median of the latest measured runs (a table measured on a loaded 2-core machine stands in
// until the first measurement). Kills are placed after a progress line drawn from the second.
import type { MutatingOperation } from '../host-state/expectations.js';

export const DEFAULT_DURATION_MS: Record<MutatingOperation, number> = {
  'ensure-namespace': 1900,
  'prepare-revision': 2000,
  // Two native `openclaw setup` runs of the real OpenClaw on a loaded 2-core host.
  'setup-workspace': 25000,
  'activate-revision': 5000,
  'stop-revision': 2800,
  'retire-revision': 1500,
  'delete-agent': 2500,
  'delete-namespace': 3800,
};

/** Progress lines of an unkilled run's own steps on an idle test host (the checks before and after the lock, one per change begun). */
export const DEFAULT_PROGRESS_LINES: Record<MutatingOperation, number> = {
  'ensure-namespace': 3,
  'prepare-revision': 8,
  'setup-workspace': 30,
  'activate-revision': 6,
  'stop-revision': 3,
  'retire-revision': 3,
  'delete-agent': 8,
  'delete-namespace': 6,
};

/** The helper's checks before it takes the lock and right after: each prints a progress line before its first change. */
const CHECKS_BEFORE_CHANGES = 2;

/**
 * The progress lines of an operation's own steps, from an uncut run: its checks, then one per change its
 * audit line says it began, and never more lines than the run printed (a check whose line would land
 * inside a timer beat's is skipped). Not every line counted: the helper adds one a second while it
 * waits, so a slow machine would count lines that come after the last change and draw most kills past
 * it (retire-revision, two changes, was cut between them in 9 of 67 kills on such a machine). The count
 * of changes is the same on any machine.
 */
export function progressLinesOf(changes: number, printed: number): number {
  return Math.max(1, Math.min(printed, CHECKS_BEFORE_CHANGES + changes));
}

const WINDOW = 7;

/** The latest measured values per key (an operation's duration, or its progress line count) and their median. */
export class RecentMedians {
  private readonly seen = new Map<string, number[]>();

  constructor(private readonly defaults: Record<string, number> = DEFAULT_DURATION_MS) {}

  observe(key: string, value: number): void {
    const list = this.seen.get(key) ?? [];
    list.push(value);
    if (list.length > WINDOW) list.shift();
    this.seen.set(key, list);
  }

  has(key: string): boolean {
    return (this.seen.get(key)?.length ?? 0) > 0;
  }

  /** The (lower) median of the latest runs, or the default before any was seen. */
  estimate(key: string): number {
    const list = this.seen.get(key);
    if (!list || list.length === 0) return this.defaults[key] ?? 3000;
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)]!;
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries([...new Set([...Object.keys(this.defaults), ...this.seen.keys()])].map((key) => [key, Math.round(this.estimate(key))]));
  }
}
