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

/** A failed test's name and the start of its error, from the TAP block under its `not ok` line. */
export interface FailedTest {
  name: string;
  error: string;
}

const ERROR_CHARS = 300;

/**
 * The tests that failed in one file's TAP output, suites whose failure is only their subtests' and
 * tests cancelled with their failed suite left out (the suite's own line says why).
 * The CI's summary prints these so a failure reads without the log, which a fresh clone's run leaves behind.
 */
export function failedTests(stdout: string): FailedTest[] {
  const lines = stdout.split('\n');
  const failed: FailedTest[] = [];
  lines.forEach((line, i) => {
    const head = /^(\s*)not ok \d+ - (.*)$/.exec(line);
    if (!head) return;
    const block = yamlBlock(lines, i + 1, (head[1] as string).length + 2);
    if (/^failureType: '(subtestsFailed|cancelledByParent)'$/m.test(block.join('\n'))) return;
    failed.push({ name: head[2] as string, error: errorOf(block).slice(0, ERROR_CHARS) });
  });
  return failed;
}

/** The lines between `---` and `...` at the given indent, with that indent removed. */
function yamlBlock(lines: readonly string[], start: number, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (lines[start] !== `${pad}---`) return [];
  const block: string[] = [];
  for (let i = start + 1; i < lines.length && lines[i] !== `${pad}...`; i++) block.push((lines[i] as string).slice(indent));
  return block;
}

function errorOf(block: readonly string[]): string {
  const at = block.findIndex((l) => l.startsWith('error: '));
  if (at < 0) return '';
  const inline = (block[at] as string).slice('error: '.length);
  if (inline !== '|-' && inline !== '|') return inline.replace(/^'(.*)'$/, '$1');
  const body: string[] = [];
  for (let i = at + 1; i < block.length && /^(\s{2}|$)/.test(block[i] as string); i++) body.push((block[i] as string).trim());
  return body.filter(Boolean).join(' / ');
}
