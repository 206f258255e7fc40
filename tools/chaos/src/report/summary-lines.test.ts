// The printed summary and the counts of a whole campaign: docs/reliability.md quotes these lines,
// so every section's line, in its place, is pinned here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOptions } from '../campaign/options.js';
import { countsOf, judge, summaryLines, type Results } from './report.js';

const { sizes } = parseOptions(['--quick'], { full: '/tmp/full.json', quick: '/tmp/quick.json' });
const trials = (by: Record<string, number>) => ({
  trials: Object.values(by).reduce((a, b) => a + b, 0),
  violations: 0,
  violationItems: 0,
  nonConverged: 0,
  completedFirst: 1,
  effects: { none: 1, complete: 1, intermediate: 2 },
  by: Object.fromEntries(Object.entries(by).map(([k, n]) => [k, { trials: n, violations: 0, nonConverged: 0, intermediate: 1, midway: 2, completedFirst: 0 }])),
  helperWaitMs: { median: 1, max: 2 },
  failures: [],
});
const crash = (step: number) => ({ step, rows: [], trials: 12, offTarget: 1, violations: 0, nonConverged: 0, exact: 9, tried: 10, counted: [], failures: [], durationMs: 61_000 });

// Built as the JSON file holds it: the shapes are checked by the sections' own tests.
const sections = {
  kill: { ...trials({ 'ensure-namespace': 3, 'delete-namespace': 2 }), durationMs: 120_400, calibrationMs: [] },
  faults: { ...trials({ 'helper-sigkill': 1, 'wait-stop': 1 }), durationMs: 30_000 },
  races: {
    allocations: 60,
    failedPrepares: [],
    duplicatePorts: 0,
    duplicateAccounts: 0,
    missingAgents: 0,
    batches: [{ agents: 6, ports: 6, violations: 0, deletedClean: true }],
    prepareVsDelete: { rounds: 2, deleted: 1, prepared: 1, inconsistent: 0, outcomes: {} },
    retried: {},
    violations: [],
    failures: [],
    durationMs: 45_000,
  },
  badInput: {
    cases: 210,
    refused: 210,
    classified: 209,
    unchanged: 210,
    batches: 7,
    changedBatches: 0,
    perBatch: [],
    byGroup: { documents: { cases: 210, refused: 210, classified: 209, unchanged: 210 } },
    codes: {},
    failures: [],
    durationMs: 9000,
  },
  hostile: { cases: 8, refused: 5, unchanged: 5, targetsUnchanged: 8, notFollowed: 3, results: [], durationMs: 12_000 },
  secrets: {
    corpora: [{ name: 'controller logs', bytes: 10 }],
    argvSamples: { host: 3, local: 4 },
    helperInvocationsSampled: { host: 2, local: 5 },
    problems: [],
    sightings: 0,
    found: [],
    durationMs: 50_000,
  },
  crashPoints: crash(5),
  injectedErrors: crash(1),
  hostileTenants: {
    plan: { lockTrials: 2, trickleTrials: 1, treeDepth: 3000, treeFiles: 20_000, plantedNames: 200_000, floodEntryMiB: 32, floodSampleMs: 5000 },
    bounds: { operationMs: 1000, readinessTimeoutMs: 1000, readinessMarginMs: 1000, inventoryMs: 1000 },
    lock: [],
    trickle: [],
    problems: ['not set up'],
    durationMs: 70_000,
  },
} as unknown as Results['sections'];

function results(of: Results['sections'], laneDocuments?: Results['laneDocuments']): Results {
  const run = ['kill', 'faults', 'races', 'bad-input', 'hostile', 'secrets', 'crash-points', 'injected-errors', 'hostile-tenants'] as Results['sectionsRun'];
  const targets = judge(of, sizes, run);
  return {
    mode: 'quick',
    seed: 7,
    command: 'npm run chaos -- --quick --seed 7',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 300_000,
    sizes,
    sectionsRun: run,
    machine: { cpus: 2, loadAverage: [1, 1, 1] },
    errors: ['races: boom'],
    counts: countsOf(of),
    sections: of,
    targets,
    ok: false,
    ...(laneDocuments ? { laneDocuments } : {}),
  };
}

describe('summaryLines', () => {
  it('prints every section in its place, the lane documents after the kill lanes, then the misses and errors', () => {
    const lines = summaryLines(results(sections, { sightings: 0, found: [], corpora: [{ name: 'a', bytes: 5 }] }));
    const tenants = lines.find((line) => line.startsWith('  hostile-tenants:'));
    assert.match(tenants ?? '', /, [1-9][0-9]* targets missed \[70 s\]$/);
    assert.deepEqual(
      lines.filter((line) => !line.startsWith('  hostile-tenants:') && !line.startsWith('  MISSED hostile-tenants')),
      [
        'chaos quick campaign, seed 7: TARGETS MISSED in 300 s',
        '  kill (ssh client SIGKILL): 5 trials (4 cut between two changes, 2 of them leaving a partial state; 1 completed first), 0 violations, 0 not converged [120 s]',
        '     cut between two changes (partial: left an intermediate state, the rest undone by the helper): ensure-namespace 2/3 (67%, 1 partial), delete-namespace 2/2 (100%, 1 partial)',
        '  lane document sentinel: 0 sightings in 1 corpora (5 bytes)',
        '  faults (host faults): 2 trials (helper-sigkill 1, wait-stop 1), 0 violations, 0 not converged [30 s]',
        '  races: 60 allocations, 0 duplicate ports, 0 duplicate accounts; prepare vs delete 2 rounds, 0 inconsistent; 0 violations [45 s]',
        '  bad-input: 210 cases, 210 refused, 209 classified, 210 unchanged (7 tree comparisons) [9 s]',
        '  hostile (hostile host state): 8 cases, 5 refused, 5 unchanged, 3 planted-link cases not followed [12 s]',
        '  secrets: 0 sightings in 1 corpora (7 helper invocations sampled on argv) [50 s]',
        '  crash-points (strace SIGKILL): 12 trials at 9/10 exact points (1 point in 5), 1 off target, 0 violations, 0 not converged [61 s]',
        '  injected-errors (ENOSPC, EIO): 12 trials at 9/10 exact points (every point), 1 off target, 0 violations, 0 not converged [61 s]',
        '  MISSED kill: at least 40 SIGKILL trials (5 trials)',
        '  MISSED kill: every mutating operation was cut (ensure-namespace 3, prepare-revision 0, setup-workspace 0, activate-revision 0, stop-revision 0, retire-revision 0, delete-agent 0, delete-namespace 2)',
        '  MISSED faults: all 9 host-side faults ran (2 trials: helper-sigkill 1, wait-stop 1)',
        '  MISSED bad-input: 100% refused with a permanent, classified error (210 refused, 209 classified of 210)',
        '  MISSED hostile: 100% refused with ownership, nothing adopted or written (5/0 refused, 5/0 unchanged)',
        '  MISSED crash-points: every mutating operation counted and cut in both lanes (not cut: ensure-namespace (helper), prepare-revision (helper), setup-workspace (helper), activate-revision (helper), stop-revision (helper), retire-revision (helper), delete-agent (helper), delete-namespace (helper), ensure-namespace (children), prepare-revision (children), setup-workspace (children), activate-revision (children), stop-revision (children), retire-revision (children), delete-agent (children), delete-namespace (children))',
        '  MISSED injected-errors: every mutating operation counted and cut (not cut: ensure-namespace (errors), prepare-revision (errors), setup-workspace (errors), activate-revision (errors), stop-revision (errors), retire-revision (errors), delete-agent (errors), delete-namespace (errors))',
        '  ERROR races: boom',
      ],
    );
  });

  it('without kill lanes, the lane documents line follows the first line; sections that did not run print nothing', () => {
    const lines = summaryLines(results({ faults: sections.faults! }, { sightings: 1, found: [], corpora: [{ name: 'a', bytes: 2 }] }));
    assert.deepEqual(lines.slice(0, 3), [
      'chaos quick campaign, seed 7: TARGETS MISSED in 300 s',
      '  lane document sentinel: 1 sightings in 1 corpora (2 bytes)',
      '  faults (host faults): 2 trials (helper-sigkill 1, wait-stop 1), 0 violations, 0 not converged [30 s]',
    ]);
  });

  it('counts every section under its results key', () => {
    assert.deepEqual(Object.keys(countsOf(sections)).sort(), ['badInput', 'crashPoints', 'faults', 'hostile', 'hostileTenants', 'injectedErrors', 'kill', 'races', 'secrets']);
    assert.deepEqual(countsOf(sections)['hostile'], { trials: 8, refused: 5, unchanged: 8, violations: 0 });
    assert.deepEqual(countsOf(sections)['races'], { trials: 62, violations: 0, nonConverged: 0 });
  });
});
