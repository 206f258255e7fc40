// node:test's closing counts (`# tests 17`, `# pass 17`, ...) from one file's output, and their sums.

const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const;
export type Counts = Record<(typeof COUNTS)[number], number>;

export const noCounts = (): Counts => ({ tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 });

/** The last value of each count the reporter printed; undefined when it printed none (the run died first). */
export function parseCounts(stdout: string): Counts | undefined {
  const counts = noCounts();
  let seen = false;
  for (const name of COUNTS) {
    const values = [...stdout.matchAll(new RegExp(`^# ${name} (\\d+)$`, 'gm'))];
    const last = values.at(-1)?.[1];
    if (last === undefined) continue;
    counts[name] = Number(last);
    seen = true;
  }
  return seen ? counts : undefined;
}

export function addCounts(a: Counts, b: Counts): Counts {
  const sum = noCounts();
  for (const name of COUNTS) sum[name] = a[name] + b[name];
  return sum;
}

export const formatCounts = (c: Counts) => COUNTS.map((name) => `${name} ${c[name]}`).join(', ');
