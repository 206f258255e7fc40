// The pool's order, width and verdicts, with real node:test child processes for the verdicts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parseArgs } from './cli.js';
import { discoverJobs, longestFirst, selectJobs, withSecondImage, type Job } from './jobs.js';
import { SECOND_IMAGE_FILES } from './second-image.js';
import { runPool } from './pool.js';
import { runFile } from './run-file.js';
import { failedTests, parseCounts } from './summary.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const job = (label: string, weight: number): Job => ({ label, project: '.', argv: [], weight });

describe('the e2e pool', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'e2e-pool-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('finds every real-host file of the projects with an e2e script, run from its project with the netguard, and no unit test', () => {
    const jobs = discoverJobs(ROOT);
    const labels = jobs.map((j) => j.label);
    assert.ok(labels.includes('apps/controller/src/admission/gateway-settings.e2e.test.ts'));
    assert.ok(labels.includes('apps/host-helper/src/context/session.host.test.ts'));
    assert.ok(labels.includes('tools/testhost/src/teardown.host.test.ts'));
    assert.ok(labels.every((label) => /\.(host|e2e)\.test\.ts$/.test(label)));
    const session = jobs.find((j) => j.label === 'apps/host-helper/src/context/session.host.test.ts');
    assert.deepEqual(session && { project: session.project, argv: session.argv }, {
      project: 'apps/host-helper',
      argv: ['--import', 'tsx', '--import', '../../tools/netguard/src/register.ts', '--test', '--test-reporter=tap', 'src/context/session.host.test.ts'],
    });
  });

  it('runs every named file of the second-image subset again with the Debian 13 / Node 26 image in its environment, and names only files that exist', () => {
    const jobs = discoverJobs(ROOT);
    const labels = new Set(jobs.map((j) => j.label));
    for (const [file, why] of Object.entries(SECOND_IMAGE_FILES)) {
      assert.ok(labels.has(file), `${file} is a real-host file`);
      assert.ok(why.length > 10, `${file} says why it is in the subset`);
    }
    const all = withSecondImage(jobs);
    const second = all.filter((j) => j.env !== undefined);
    assert.equal(all.length, jobs.length + Object.keys(SECOND_IMAGE_FILES).length);
    assert.deepEqual(
      second.map((j) => j.label).sort(),
      Object.keys(SECOND_IMAGE_FILES)
        .map((file) => `${file} [debian13-node26]`)
        .sort(),
    );
    for (const j of second) assert.deepEqual(j.env, { OCC_TESTHOST_DEBIAN: 'trixie', OCC_TESTHOST_NODE: '26' });
    assert.deepEqual(selectJobs(all, ['debian13']).length, second.length);
  });

  it('orders longest first, ties by name, and selects by path filter', () => {
    const jobs = [job('b', 10), job('a', 10), job('c', 99), job('d', 1)];
    assert.deepEqual(
      longestFirst(jobs).map((j) => j.label),
      ['c', 'a', 'b', 'd'],
    );
    assert.deepEqual(
      selectJobs(jobs, ['a', 'd']).map((j) => j.label),
      ['a', 'd'],
    );
    assert.equal(selectJobs(jobs, []).length, 4);
  });

  it('never runs two jobs of one key at once, taking the next job whose key is free', async () => {
    const running = new Set<string>();
    const started: string[] = [];
    const jobs = ['a', 'a', 'b', 'c'];
    const results = await runPool(
      jobs,
      3,
      async (key) => {
        assert.equal(running.has(key), false, `two jobs of ${key} at once`);
        running.add(key);
        started.push(key);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running.delete(key);
        return key.toUpperCase();
      },
      { keyOf: (key) => key },
    );
    assert.deepEqual(results, ['A', 'A', 'B', 'C']);
    // The second `a` waits for the first; `b` and `c` start beside it.
    assert.deepEqual(started, ['a', 'b', 'c', 'a']);
  });

  it('starts a job only when canStart allows it, and looks again while nothing ends (a gate opened from outside)', async () => {
    let open = false;
    const started: string[] = [];
    const gateOpened = setTimeout(() => (open = true), 300);
    const results = await runPool(
      ['heavy', 'light'],
      2,
      async (name) => {
        started.push(name);
        return name;
      },
      { canStart: (name) => name !== 'heavy' || open },
    );
    clearTimeout(gateOpened);
    assert.deepEqual(results, ['heavy', 'light']);
    // The light job went first though listed second; the heavy one once the gate was open.
    assert.deepEqual(started, ['light', 'heavy']);
    assert.equal(open, true);
  });

  it('never runs more than its width at once, and returns every outcome in order', async () => {
    let running = 0;
    let widest = 0;
    const results = await runPool([5, 1, 4, 2, 3, 0], 3, async (n) => {
      running += 1;
      widest = Math.max(widest, running);
      await new Promise((resolve) => setTimeout(resolve, n * 5));
      running -= 1;
      return n * 10;
    });
    assert.deepEqual(results, [50, 10, 40, 20, 30, 0]);
    assert.equal(widest, 3);
    await assert.rejects(
      runPool([1], 0, async () => 1),
      /at least 1/,
    );
  });

  it('reads the closing counts node:test prints, the last ones winning', () => {
    assert.deepEqual(parseCounts('# tests 1\n# pass 1\nok 1\n# tests 3\n# suites 1\n# pass 2\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n'), {
      tests: 3,
      suites: 1,
      pass: 2,
      fail: 1,
      cancelled: 0,
      skipped: 0,
      todo: 0,
    });
    assert.equal(parseCounts('Error: cannot find module\n'), undefined);
  });

  it('names each failed test and the start of its error from the TAP report, leaving out suites failed only by their tests and tests cancelled with them', () => {
    const tap = [
      '# Subtest: s',
      '    not ok 1 - lock bound',
      '      ---',
      "      failureType: 'testCodeFailure'",
      "      error: 'lock held 2600 ms'",
      '      stack: |-',
      '        at x',
      '      ...',
      '    not ok 3 - cancelled',
      '      ---',
      "      failureType: 'cancelledByParent'",
      "      error: 'test did not finish before its parent and was cancelled'",
      '      ...',
      '    not ok 2 - equal',
      '      ---',
      '      error: |-',
      '        Expected values to be strictly equal:',
      '        ',
      '        1 !== 2',
      "      code: 'ERR_ASSERTION'",
      '      ...',
      'not ok 1 - s',
      '  ---',
      "  failureType: 'subtestsFailed'",
      "  error: '2 subtests failed'",
      '  ...',
    ].join('\n');
    assert.deepEqual(failedTests(tap), [
      { name: 'lock bound', error: 'lock held 2600 ms' },
      { name: 'equal', error: 'Expected values to be strictly equal: / 1 !== 2' },
    ]);
    assert.deepEqual(failedTests('ok 1 - fine\n'), []);
  });

  it('passes a file whose tests pass, and fails one with a failing test or that never reports, keeping each output', async () => {
    const write = (name: string, source: string) => {
      writeFileSync(path.join(scratch, name), source);
      return { label: name, project: '.', argv: ['--test', '--test-reporter=tap', name], weight: 1 };
    };
    const good = write('good.test.mjs', "import { test } from 'node:test'; test('fine', () => {});");
    const bad = write('bad.test.mjs', "import { test } from 'node:test'; test('broken', () => { throw new Error('boom'); });");
    const dead = { label: 'dead', project: '.', argv: ['-e', 'process.exit(3)'], weight: 1 };
    const imaged = {
      ...write('env.test.mjs', "import { test } from 'node:test'; import assert from 'node:assert'; test('env', () => assert.equal(process.env.OCC_TESTHOST_NODE, '26'));"),
      env: { OCC_TESTHOST_NODE: '26' },
    };
    const [ok, failed, died, withEnv] = await runPool([good, bad, dead, imaged], 3, (j) => runFile(scratch, j, path.join(scratch, 'logs')));
    assert.deepEqual([ok?.ok, ok?.counts?.pass, ok?.problem], [true, 1, undefined]);
    assert.deepEqual([failed?.ok, failed?.problem], [false, '1 failed, 0 cancelled']);
    assert.match(readFileSync(failed?.logFile ?? '', 'utf8'), /boom/);
    assert.deepEqual(failedTests(failed?.output ?? ''), [{ name: 'broken', error: 'boom' }]);
    assert.deepEqual([died?.ok, died?.problem], [false, 'exit 3']);
    assert.deepEqual([withEnv?.ok, withEnv?.counts?.pass], [true, 1]);
  });

  it('takes its width from --concurrency or E2E_POOL_CONCURRENCY, and refuses anything but a whole number', () => {
    assert.equal(parseArgs([], {}).concurrency, 4);
    assert.equal(parseArgs([], { E2E_POOL_CONCURRENCY: '2' }).concurrency, 2);
    assert.deepEqual(parseArgs(['--concurrency', '3', '--list', 'apps/'], {}), { concurrency: 3, list: true, filters: ['apps/'] });
    assert.throws(() => parseArgs(['--concurrency', '0'], {}), /whole number/);
    assert.throws(() => parseArgs(['--fast'], {}), /unknown option --fast/);
  });
});
