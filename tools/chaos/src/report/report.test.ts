// Judging a campaign: summaries count what they should, every target is checked, and a section
// that ran without results, a violation, or a sighting fails the run. Also the command line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MUTATING_OPERATIONS } from '@occ-ssh/protocol';
import { DEFAULT_SEED, parseOptions, SECTIONS, UsageError } from '../campaign/options.js';
import { FULL, QUICK } from '../campaign/sizes.js';
import type { CrashRow } from '../crash-points/crash-rows.js';
import { CRASH_OPERATIONS, operationQueue, type CrashRecord, type OperationCount } from '../crash-points/records.js';
import { judge, type SectionResults } from './report.js';
import { summarizeBadInput } from '../bad-input/section.js';
import { crashPoints, injectedErrors, summarizeCrashes, type CrashSummary } from '../crash-points/section.js';
import { MIDWAY_SHARE } from '../kill/section.js';
import { intermediateShares, midwayShares, summarizeTrials } from '../trials/trial-summary.js';
import type { Point } from '../crash-points/strace-log.js';
import type { TrialRecord } from '../trials/trial.js';

const OPS = MUTATING_OPERATIONS;

function record(operation: (typeof OPS)[number], change: Partial<TrialRecord> = {}): TrialRecord {
  return {
    operation,
    subject: 'ns-x',
    fault: 'ssh-client-sigkill',
    atMs: 10,
    measuredMs: 100,
    completedFirst: false,
    firstMs: 10,
    effect: 'intermediate',
    helperWaitMs: 300,
    violations: [],
    pendingAfterFault: [],
    retry: { ok: true, ms: 50 },
    problems: [],
    ...change,
  };
}

const cleanKill = () => ({
  ...summarizeTrials(
    Array.from({ length: QUICK.killTrials }, (_, i) => record(OPS[i % OPS.length]!)),
    (r) => r.operation,
  ),
  durationMs: 1,
  calibrationMs: [],
});

describe('summarizeTrials', () => {
  it('counts trials, violations, non-convergence and effects per operation', () => {
    const summary = summarizeTrials(
      [
        record('prepare-revision'),
        record('prepare-revision', { violations: [{ rule: 'temp-file', path: '/x', message: 'left' }], effect: 'none' }),
        record('activate-revision', { problems: ['served.json does not name rev-1'], completedFirst: true, effect: 'complete', helperWaitMs: 900 }),
      ],
      (r) => r.operation,
    );
    assert.equal(summary.trials, 3);
    assert.equal(summary.violations, 1);
    assert.equal(summary.violationItems, 1);
    assert.equal(summary.nonConverged, 1);
    assert.equal(summary.completedFirst, 1);
    assert.deepEqual(summary.effects, { none: 1, complete: 1, intermediate: 1 });
    assert.deepEqual(summary.by['prepare-revision'], { trials: 2, violations: 1, nonConverged: 0, intermediate: 1, midway: 1, completedFirst: 0 });
    assert.equal(summary.failures.length, 2);
    assert.deepEqual(summary.helperWaitMs, { median: 300, max: 900 });
  });

  it('takes the upper middle wait as the median, as the published campaigns did (interpolating would give 200)', () => {
    const summary = summarizeTrials([record('prepare-revision', { helperWaitMs: 300 }), record('prepare-revision', { helperWaitMs: 100 })], (r) => r.operation);
    assert.deepEqual(summary.helperWaitMs, { median: 300, max: 300 });
    assert.deepEqual(summarizeTrials([], (r) => r.operation).helperWaitMs, { median: 0, max: 0 });
  });
});

describe('summarizeBadInput', () => {
  it('counts per group and per tree comparison', () => {
    const summary = summarizeBadInput([
      { group: 'installation', name: 'a', refused: true, classified: true, unchanged: true, batch: 0, code: 'configuration' },
      { group: 'driver', name: 'b', refused: true, classified: true, unchanged: true, batch: 1, code: 'admission' },
      { group: 'driver', name: 'c', refused: true, classified: false, unchanged: false, batch: 2, code: 'internal' },
    ]);
    assert.equal(summary.cases, 3);
    assert.equal(summary.refused, 3);
    assert.equal(summary.classified, 2);
    assert.equal(summary.unchanged, 2);
    assert.equal(summary.batches, 3);
    assert.equal(summary.changedBatches, 1);
    assert.deepEqual(
      summary.failures.map((f) => f.name),
      ['c'],
    );
  });
});

describe('judge', () => {
  it('a clean kill section meets every kill target', () => {
    const targets = judge({ kill: cleanKill() }, QUICK, ['kill']);
    assert.equal(targets.length, 4);
    assert.ok(
      targets.every((t) => t.met),
      JSON.stringify(targets),
    );
  });

  it('reports per operation how many kills landed mid-operation', () => {
    const summary = summarizeTrials([record('ensure-namespace'), record('ensure-namespace', { effect: 'none' }), record('delete-namespace', { effect: 'complete' })], (r) => r.operation);
    assert.equal(intermediateShares(summary), 'ensure-namespace 1/2 (50%), delete-namespace 0/1 (0%)');
  });

  it('counts a kill the helper stopped at after some changes as midway, even when it undid them', () => {
    const summary = summarizeTrials(
      [
        record('ensure-namespace', { effect: 'none', midway: true, helper: { outcome: 'cancelled', changes: 2 } }),
        record('ensure-namespace', { effect: 'none', midway: false, helper: { outcome: 'cancelled', changes: 0 } }),
        record('ensure-namespace', { effect: 'intermediate', midway: true }),
      ],
      (r) => r.operation,
    );
    assert.equal(midwayShares(summary), 'ensure-namespace 2/3 (67%, 1 partial)');
  });

  it('in a full campaign, an operation cut midway in fewer than the required share of its kills misses the target', () => {
    const records = Array.from({ length: FULL.killTrials }, (_, i) =>
      // One in five of retire-revision's own kills lands midway, however many operations there are.
      record(OPS[i % OPS.length]!, OPS[i % OPS.length] === 'retire-revision' && Math.floor(i / OPS.length) % 5 !== 0 ? { effect: 'complete', midway: false } : {}),
    );
    const kill = { ...summarizeTrials(records, (r) => r.operation), durationMs: 1, calibrationMs: [] };
    const target = judge({ kill }, FULL, ['kill']).find((t) => t.name.includes('midway'));
    assert.ok(target && !target.met && MIDWAY_SHARE === 0.3, JSON.stringify(target));
    assert.match(target.detail, /retire-revision \d+\/\d+ \(2\d%/);
    assert.equal(
      judge({ kill: cleanKill() }, QUICK, ['kill']).some((t) => t.name.includes('midway')),
      false,
      'not judged on a quick sample',
    );
  });

  it('one violation or one non-converged trial misses the target', () => {
    const kill = cleanKill();
    kill.violations = 1;
    kill.nonConverged = 1;
    const missed = judge({ kill }, QUICK, ['kill'])
      .filter((t) => !t.met)
      .map((t) => t.name);
    assert.deepEqual(missed, ['zero invariant violations', '100% convergence']);
  });

  it('too few trials, or an operation never cut, misses the target', () => {
    const kill = { ...summarizeTrials([record('prepare-revision')], (r) => r.operation), durationMs: 1, calibrationMs: [] };
    const missed = judge({ kill }, QUICK, ['kill'])
      .filter((t) => !t.met)
      .map((t) => t.name);
    assert.deepEqual(missed, [`at least ${QUICK.killTrials} SIGKILL trials`, 'every mutating operation was cut']);
  });

  it('a section that ran but produced nothing fails; one that did not run is not judged', () => {
    const targets = judge({}, QUICK, ['races']);
    assert.deepEqual(
      targets.map((t) => [t.section, t.met]),
      [['races', false]],
    );
    assert.deepEqual(
      judge({ kill: cleanKill() }, QUICK, ['kill']).map((t) => t.section),
      ['kill', 'kill', 'kill', 'kill'],
    );
  });

  it('crash points: an operation not cut in a lane, a violation or a non-converged trial misses the target', () => {
    const row = (operation: string, lane: string, change: Partial<CrashRow> = {}): CrashRow => ({
      operation,
      lane,
      points: 5,
      tried: 1,
      exact: 1,
      trials: 1,
      violations: 0,
      nonConverged: 0,
      slowestRetryMs: 10,
      ...change,
    });
    const summary = (rows: CrashRow[], change: Partial<CrashSummary> = {}): CrashSummary => ({
      step: 5,
      rows,
      trials: rows.length,
      offTarget: 0,
      violations: 0,
      nonConverged: 0,
      exact: rows.length,
      tried: rows.length,
      counted: [],
      failures: [],
      durationMs: 1,
      ...change,
    });
    const both = OPS.flatMap((op) => [row(op, 'helper'), row(op, 'children')]);
    assert.ok(judge({ crashPoints: summary(both) }, QUICK, ['crash-points']).every((t) => t.met));
    const missed = (s: CrashSummary) =>
      judge({ crashPoints: s }, QUICK, ['crash-points'])
        .filter((t) => !t.met)
        .map((t) => t.name);
    assert.deepEqual(missed(summary(both.slice(1))), ['every mutating operation counted and cut in both lanes']);
    const noChildren = both.map((r) => (r.lane === 'children' && r.operation === 'stop-revision' ? { ...r, points: 0, tried: 0, exact: 0, trials: 0 } : r));
    assert.ok(
      judge({ crashPoints: summary(noChildren) }, QUICK, ['crash-points']).every((t) => t.met),
      'no children points: nothing to cut',
    );
    assert.deepEqual(missed(summary(both, { nonConverged: 1 })), ['100% convergence']);
    assert.deepEqual(missed(summary(both, { violations: 2 })), ['zero invariant violations']);
    assert.equal(judge({}, QUICK, ['injected-errors']).filter((t) => !t.met).length, 1, 'a section that ran without results fails');
  });

  it('crash summaries: rows only for the lanes that ran, off-target injections listed but not judged', () => {
    const point = (ordinal: number): Point => ({ syscall: 'rename', when: ordinal, ordinal, whens: [ordinal], what: 'rename <root>/x', program: 'node' });
    const counts: OperationCount[] = [{ operation: 'ensure-namespace', lane: 'helper', points: [point(1), point(2)], children: {} }];
    const crash = (change: Partial<CrashRecord>): CrashRecord => ({ ...record('ensure-namespace'), lane: 'errors', point: point(1), exact: true, attempt: 1, injection: 'EIO', ...change });
    const records = [crash({}), crash({ point: point(2), exact: false, offTarget: true, problems: ['no result line'] })];
    const summary = summarizeCrashes(counts, records, 1, 5);
    assert.deepEqual(
      summary.rows.map((row) => [row.lane, row.points, row.tried, row.exact, row.trials, row.nonConverged]),
      [['errors', 2, 2, 1, 2, 0]],
    );
    assert.deepEqual([summary.trials, summary.offTarget, summary.nonConverged, summary.tried, summary.exact], [2, 1, 0, 2, 1]);
  });

  it('secrets: any sighting fails', () => {
    const secrets = (sightings: number): SectionResults['secrets'] => ({
      sightings,
      found: [],
      corpora: [{ name: 'controller logs', bytes: 100 }],
      argvSamples: { host: 5, local: 5 },
      helperInvocationsSampled: { host: 3, local: 3 },
      problems: [],
      durationMs: 1,
    });
    assert.ok(judge({ secrets: secrets(0) }, QUICK, ['secrets']).every((t) => t.met));
    assert.equal(judge({ secrets: secrets(1) }, QUICK, ['secrets']).filter((t) => !t.met).length, 1);
  });

  it('bad input below 200 cases, or one changed tree, fails', () => {
    const base = summarizeBadInput(Array.from({ length: 199 }, (_, i) => ({ group: 'installation' as const, name: `${i}`, refused: true, classified: true, unchanged: true, batch: 0 })));
    assert.deepEqual(
      judge({ badInput: { ...base, durationMs: 1 } }, QUICK, ['bad-input'])
        .filter((t) => !t.met)
        .map((t) => t.name),
      ['at least 200 malformed cases'],
    );
  });
});

const OUT = { full: '/tmp/latest.json', quick: '/tmp/quick.json' };

describe('parseOptions', () => {
  it('defaults to the full campaign with the default seed and every section', () => {
    const options = parseOptions([], OUT);
    assert.deepEqual({ mode: options.mode, seed: options.seed, sections: options.sections, out: options.out }, { mode: 'full', seed: DEFAULT_SEED, sections: [...SECTIONS], out: '/tmp/latest.json' });
    assert.deepEqual(options.sizes, FULL);
    assert.equal(parseOptions(['--quick'], OUT).out, '/tmp/quick.json', 'a quick run never overwrites the published results');
  });

  it('--quick, --seed, --only and --out', () => {
    const options = parseOptions(['--quick', '--seed', '7', '--only', 'kill,secrets', '--out', '/tmp/x.json'], OUT);
    assert.equal(options.mode, 'quick');
    assert.deepEqual(options.sizes, QUICK);
    assert.equal(options.seed, 7);
    assert.deepEqual(options.sections, ['kill', 'secrets']);
    assert.equal(options.out, '/tmp/x.json');
  });

  it('--crash-step samples every n-th crash point; quick samples every fifteenth, full every point', () => {
    assert.equal(QUICK.crashPointStep, 15);
    assert.equal(FULL.crashPointStep, 1);
    assert.equal(parseOptions(['--crash-step', '3'], OUT).sizes.crashPointStep, 3);
    assert.equal(FULL.crashPointStep, 1, 'the override does not change the shared sizes');
    for (const step of ['0', '-1', 'x', '1000']) assert.throws(() => parseOptions(['--crash-step', step], OUT), UsageError, step);
  });

  it('the quick campaign shares crash points over two hosts, each taking the next operation left, most points first', () => {
    assert.deepEqual([QUICK.crashHosts, FULL.crashHosts], [2, 1]);
    assert.deepEqual(
      crashPoints.lanes(QUICK).map((lane) => lane.host),
      ['c', 'c1'],
    );
    assert.deepEqual(
      crashPoints.lanes(FULL).map((lane) => lane.host),
      ['c'],
    );
    assert.deepEqual(
      injectedErrors.lanes(QUICK).map((lane) => lane.host),
      ['e'],
    );
    const take = operationQueue(CRASH_OPERATIONS);
    const [first, second] = [[] as string[], [] as string[]];
    for (let op = take(); op; op = take()) (first.length <= second.length ? first : second).push(op);
    assert.deepEqual(first.slice(0, 2), ['prepare-revision', 'delete-namespace']);
    assert.deepEqual(second.slice(0, 2), ['delete-agent', 'activate-revision']);
    assert.deepEqual([...first, ...second].sort(), [...CRASH_OPERATIONS].sort(), 'every operation handed out once');
  });

  it('refuses bad seeds, unknown sections and unknown flags', () => {
    for (const argv of [['--seed', '-1'], ['--seed', 'abc'], ['--seed', '4294967296'], ['--only', 'kill,nope'], ['--only', ''], ['--fast'], ['extra']]) {
      assert.throws(() => parseOptions(argv, OUT), UsageError, argv.join(' '));
    }
  });

  it('the full campaign keeps the promised sizes', () => {
    assert.ok(FULL.killTrials >= 500);
    assert.ok(FULL.allocations >= 1000);
    assert.ok(QUICK.killTrials >= 40 && QUICK.allocations >= 60);
  });
});
