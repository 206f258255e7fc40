// The campaign's results: per-section counts, the targets they are judged against, and the
// summary printed at the end. Summaries and judgement are pure.
import type { BadCaseResult } from './bad-input.js';
import { KILL_OPERATIONS } from './kill-trials.js';
import { CRASH_OPERATIONS, crashRows, type CrashRecord, type CrashRow, type OperationCount } from './crash-points.js';
import { WAIT_FAULTS } from './host-faults.js';
import type { HostileResult } from './hostile.js';
import type { Options, Section, Sizes } from './options.js';
import type { RaceResult } from './races.js';
import type { SecretsResult } from './secrets.js';
import type { SightingGroup } from './sightings.js';
import { tenantTargets, tenantViolations } from './tenant-judge.js';
import type { TenantsResult } from './tenant-results.js';
import type { TrialRecord } from './trial.js';
import type { MeasuredCommit } from '@occ-ssh/test-support';

const MAX_LISTED = 25;

export interface TrialSummary {
  trials: number;
  /** Trials with at least one invariant violation (after the fault or after the retry). */
  violations: number;
  violationItems: number;
  /** Trials whose retry did not reach the intended state. */
  nonConverged: number;
  /** The fault came too late to cut the call (its result line arrived). */
  completedFirst: number;
  /** What the fault left on the host before the retry. */
  effects: Record<TrialRecord['effect'], number>;
  by: Record<string, { trials: number; violations: number; nonConverged: number; intermediate: number; midway: number; completedFirst: number }>;
  /** How long helpers went on after the fault before the checker saw them gone (heartbeat detection). */
  helperWaitMs: { median: number; max: number };
  failures: TrialRecord[];
}

export function summarizeTrials(records: readonly TrialRecord[], key: (record: TrialRecord) => string): TrialSummary {
  const by: TrialSummary['by'] = {};
  const effects = { none: 0, complete: 0, intermediate: 0 };
  for (const record of records) {
    const entry = (by[key(record)] ??= { trials: 0, violations: 0, nonConverged: 0, intermediate: 0, midway: 0, completedFirst: 0 });
    entry.trials += 1;
    if (record.violations.length > 0) entry.violations += 1;
    if (record.problems.length > 0) entry.nonConverged += 1;
    if (record.effect === 'intermediate') entry.intermediate += 1;
    if (record.midway ?? record.effect === 'intermediate') entry.midway += 1;
    if (record.completedFirst) entry.completedFirst += 1;
    effects[record.effect] += 1;
  }
  // The upper middle sample, not the interpolated median: the published campaigns use this one.
  const waits = records.map((record) => record.helperWaitMs).sort((a, b) => a - b);
  const failing = records.filter((record) => record.violations.length > 0 || record.problems.length > 0);
  return {
    trials: records.length,
    violations: records.filter((record) => record.violations.length > 0).length,
    violationItems: records.reduce((sum, record) => sum + record.violations.length, 0),
    nonConverged: records.filter((record) => record.problems.length > 0).length,
    completedFirst: records.filter((record) => record.completedFirst).length,
    effects,
    by,
    helperWaitMs: { median: waits[Math.floor(waits.length / 2)] ?? 0, max: waits[waits.length - 1] ?? 0 },
    failures: failing.slice(0, MAX_LISTED),
  };
}

export interface BadInputSummary {
  cases: number;
  refused: number;
  /** Refused with a permanent ComputeError (documents: naming the key path; helper: `configuration`). */
  classified: number;
  unchanged: number;
  /** Host tree comparisons, and how many of them found a change. */
  batches: number;
  changedBatches: number;
  /** Each host tree comparison: which cases it bracketed and whether the tree was unchanged. */
  perBatch: { group: string; batch: number; cases: number; unchanged: boolean }[];
  byGroup: Record<string, { cases: number; refused: number; classified: number; unchanged: number }>;
  codes: Record<string, number>;
  failures: BadCaseResult[];
}

export function summarizeBadInput(results: readonly BadCaseResult[]): BadInputSummary {
  const byGroup: BadInputSummary['byGroup'] = {};
  const codes: Record<string, number> = {};
  const batches = new Map<string, { group: string; batch: number; cases: number; unchanged: boolean }>();
  for (const result of results) {
    const entry = (byGroup[result.group] ??= { cases: 0, refused: 0, classified: 0, unchanged: 0 });
    entry.cases += 1;
    if (result.refused) entry.refused += 1;
    if (result.classified) entry.classified += 1;
    if (result.unchanged) entry.unchanged += 1;
    const code = `${result.group}: ${result.code ?? 'none'}`;
    codes[code] = (codes[code] ?? 0) + 1;
    const key = `${result.group}#${result.batch}`;
    const batch = batches.get(key) ?? { group: result.group, batch: result.batch, cases: 0, unchanged: true };
    batch.cases += 1;
    batch.unchanged &&= result.unchanged;
    batches.set(key, batch);
  }
  return {
    cases: results.length,
    refused: results.filter((result) => result.refused).length,
    classified: results.filter((result) => result.classified).length,
    unchanged: results.filter((result) => result.unchanged).length,
    batches: batches.size,
    changedBatches: [...batches.values()].filter((batch) => !batch.unchanged).length,
    perBatch: [...batches.values()],
    byGroup,
    codes,
    // Cases that were not refused first: they are the likely cause of a changed batch.
    failures: [...results.filter((result) => !result.refused || !result.classified), ...results.filter((result) => result.refused && result.classified && !result.unchanged)].slice(0, MAX_LISTED),
  };
}

/** The crash-points or injected-errors section: one row per operation and lane, and the trials that failed. */
export interface CrashSummary {
  /** Every `step`-th point was tried. */
  step: number;
  rows: CrashRow[];
  trials: number;
  /** Injected errors whose number drifted onto a socket or eventfd write: listed, not judged. */
  offTarget: number;
  violations: number;
  nonConverged: number;
  /** Points that were hit exactly (the intended call), of the points tried. */
  exact: number;
  tried: number;
  /** Each operation's points as counted, by lane (`program syscall path`), and what its children did. */
  counted: { operation: string; lane: string; points: string[]; children: Record<string, number> }[];
  failures: CrashRecord[];
  durationMs: number;
}

export function summarizeCrashes(counts: readonly OperationCount[], records: readonly CrashRecord[], step: number, durationMs: number): CrashSummary {
  const rows = crashRows(counts, records, step);
  const judged = records.filter((record) => !record.offTarget);
  const failing = judged.filter((record) => record.violations.length > 0 || record.problems.length > 0);
  return {
    step,
    rows,
    trials: records.length,
    offTarget: records.length - judged.length,
    violations: judged.filter((record) => record.violations.length > 0).length,
    nonConverged: judged.filter((record) => record.problems.length > 0).length,
    exact: rows.reduce((sum, row) => sum + row.exact, 0),
    tried: rows.reduce((sum, row) => sum + row.tried, 0),
    counted: counts.map((c) => ({ operation: c.operation, lane: c.lane, points: c.points.map((p) => `${p.program} ${p.what}`), children: c.children })),
    failures: failing.slice(0, MAX_LISTED),
    durationMs,
  };
}

export interface SectionResults {
  kill?: TrialSummary & { durationMs: number; calibrationMs: Record<string, number>[] };
  faults?: TrialSummary & { durationMs: number };
  races?: RaceResult & { durationMs: number };
  badInput?: BadInputSummary & { durationMs: number };
  hostile?: { cases: number; refused: number; unchanged: number; targetsUnchanged: number; notFollowed: number; results: HostileResult[]; durationMs: number };
  secrets?: Omit<SecretsResult, 'sightings'> & { sightings: number; found: SightingGroup[]; durationMs: number };
  crashPoints?: CrashSummary;
  injectedErrors?: CrashSummary;
  hostileTenants?: TenantsResult;
}

/** The same six counts for every section (absent where a count does not apply). */
export interface Counts {
  trials: number;
  violations?: number;
  nonConverged?: number;
  refused?: number;
  unchanged?: number;
  sightings?: number;
}

export function countsOf(sections: SectionResults): Record<string, Counts> {
  const counts: Record<string, Counts> = {};
  if (sections.kill) counts['kill'] = { trials: sections.kill.trials, violations: sections.kill.violations, nonConverged: sections.kill.nonConverged };
  if (sections.faults) counts['faults'] = { trials: sections.faults.trials, violations: sections.faults.violations, nonConverged: sections.faults.nonConverged };
  if (sections.races) {
    const r = sections.races;
    counts['races'] = {
      trials: r.allocations + r.prepareVsDelete.rounds,
      violations: r.violations.length + r.duplicatePorts + r.duplicateAccounts,
      nonConverged: r.missingAgents + r.prepareVsDelete.inconsistent + r.batches.filter((b) => !b.deletedClean).length,
    };
  }
  if (sections.badInput) counts['badInput'] = { trials: sections.badInput.cases, refused: sections.badInput.classified, unchanged: sections.badInput.unchanged };
  if (sections.hostile) {
    const h = sections.hostile;
    counts['hostile'] = { trials: h.cases, refused: h.refused, unchanged: h.unchanged + h.notFollowed, violations: h.cases - h.targetsUnchanged };
  }
  if (sections.secrets) counts['secrets'] = { trials: sections.secrets.corpora.length, sightings: sections.secrets.sightings };
  if (sections.crashPoints) counts['crashPoints'] = { trials: sections.crashPoints.trials, violations: sections.crashPoints.violations, nonConverged: sections.crashPoints.nonConverged };
  if (sections.injectedErrors)
    counts['injectedErrors'] = { trials: sections.injectedErrors.trials, violations: sections.injectedErrors.violations, nonConverged: sections.injectedErrors.nonConverged };
  if (sections.hostileTenants) {
    const t = sections.hostileTenants;
    const trials = t.lock.length + t.trickle.length + (t.forgedAudit ? 1 : 0) + (t.hugeTrees ? 1 : 0) + (t.placeholders ? 1 : 0);
    counts['hostileTenants'] = { trials, violations: tenantViolations(t), sightings: t.placeholders?.sightings ?? 0 };
  }
  return counts;
}

export interface Target {
  section: Section;
  name: string;
  met: boolean;
  detail: string;
}

export interface Results {
  mode: Options['mode'];
  seed: number;
  command: string;
  /** The commit measured (absent outside a git checkout). */
  commit?: MeasuredCommit;
  startedAt: string;
  durationMs: number;
  sizes: Sizes;
  sectionsRun: Section[];
  machine: { cpus: number; loadAverage: number[] };
  errors: string[];
  /** trials, violations, nonConverged, refused, unchanged and sightings of each section. */
  counts: Record<string, Counts>;
  sections: SectionResults;
  targets: Target[];
  ok: boolean;
  /** The crash-point and kill lanes' document sentinel, searched in what they kept (and this file). */
  laneDocuments?: { sightings: number; found: SightingGroup[]; corpora: { name: string; bytes: number }[] };
}

/** The share of client kills that must land between two effects of their operation, once each has this many. */
export const MIDWAY_SHARE = 0.3;
const MIDWAY_SAMPLE = 20;

/** Every target of every section that ran; a section that ran and produced nothing fails. */
export function judge(sections: SectionResults, sizes: Sizes, run: readonly Section[]): Target[] {
  const targets: Target[] = [];
  const want = (section: Section, name: string, met: boolean, detail: string) => targets.push({ section, name, met, detail });
  const missing = (section: Section) => want(section, 'section completed', false, 'the section did not produce results (see errors)');

  if (run.includes('kill')) {
    const kill = sections.kill;
    if (!kill) missing('kill');
    else {
      want('kill', `at least ${sizes.killTrials} SIGKILL trials`, kill.trials >= sizes.killTrials, `${kill.trials} trials`);
      const ops = KILL_OPERATIONS;
      want(
        'kill',
        'every mutating operation was cut',
        ops.every((op) => (kill.by[op]?.trials ?? 0) > 0),
        ops.map((op) => `${op} ${kill.by[op]?.trials ?? 0}`).join(', '),
      );
      // A share needs a sample: the quick campaign's handful of kills per operation only prints it.
      if (sizes.killTrials >= MIDWAY_SAMPLE * ops.length) {
        const share = (op: string) => (kill.by[op]?.midway ?? 0) / Math.max(1, kill.by[op]?.trials ?? 0);
        want(
          'kill',
          `at least ${MIDWAY_SHARE * 100}% of every operation's kills cut it midway`,
          ops.every((op) => share(op) >= MIDWAY_SHARE),
          midwayShares(kill),
        );
      }
      want('kill', 'zero invariant violations', kill.violations === 0, `${kill.violations} trials with violations`);
      want('kill', '100% convergence', kill.nonConverged === 0, `${kill.trials - kill.nonConverged}/${kill.trials} converged`);
    }
  }
  if (run.includes('faults')) {
    const faults = sections.faults;
    if (!faults) missing('faults');
    else {
      const planned = sizes.helperKills + sizes.sshdRestarts + sizes.reboots + sizes.unready + WAIT_FAULTS.length;
      want(
        'faults',
        `all ${planned} host-side faults ran`,
        faults.trials === planned,
        `${faults.trials} trials: ${Object.entries(faults.by)
          .map(([kind, entry]) => `${kind} ${entry.trials}`)
          .join(', ')}`,
      );
      want('faults', 'zero invariant violations', faults.violations === 0, `${faults.violations} trials with violations`);
      want('faults', '100% convergence', faults.nonConverged === 0, `${faults.trials - faults.nonConverged}/${faults.trials} converged`);
    }
  }
  if (run.includes('races')) {
    const races = sections.races;
    if (!races) missing('races');
    else {
      want(
        'races',
        `at least ${sizes.allocations} concurrent port allocations`,
        races.allocations >= sizes.allocations,
        `${races.allocations} allocations, ${races.failedPrepares.length} failed prepares`,
      );
      want(
        'races',
        'no port given twice, every account distinct',
        races.duplicatePorts === 0 && races.duplicateAccounts === 0,
        `${races.duplicatePorts} duplicate ports, ${races.duplicateAccounts} duplicate accounts`,
      );
      want(
        'races',
        'every prepared Agent complete, every deletion clean',
        races.missingAgents === 0 && races.failedPrepares.length === 0 && races.batches.every((batch) => batch.deletedClean),
        `${races.missingAgents} missing Agents, ${races.batches.filter((batch) => !batch.deletedClean).length} unclean deletions`,
      );
      want(
        'races',
        'prepare racing delete ends consistent',
        races.prepareVsDelete.rounds === sizes.prepareDeleteRounds && races.prepareVsDelete.inconsistent === 0,
        `${races.prepareVsDelete.rounds} rounds: ${races.prepareVsDelete.deleted} deleted, ${races.prepareVsDelete.prepared} prepared, ${races.prepareVsDelete.inconsistent} inconsistent`,
      );
      want('races', 'zero invariant violations', races.violations.length === 0, `${races.violations.length} violations`);
    }
  }
  if (run.includes('bad-input')) {
    const bad = sections.badInput;
    if (!bad) missing('bad-input');
    else {
      want(
        'bad-input',
        'at least 200 malformed cases',
        bad.cases >= 200,
        `${bad.cases} cases: ${Object.entries(bad.byGroup)
          .map(([group, entry]) => `${group} ${entry.cases}`)
          .join(', ')}`,
      );
      want(
        'bad-input',
        '100% refused with a permanent, classified error',
        bad.refused === bad.cases && bad.classified === bad.cases,
        `${bad.refused} refused, ${bad.classified} classified of ${bad.cases}`,
      );
      want('bad-input', '100% host unchanged', bad.unchanged === bad.cases && bad.changedBatches === 0, `${bad.unchanged}/${bad.cases} unchanged over ${bad.batches} comparisons`);
    }
  }
  if (run.includes('hostile')) {
    const hostile = sections.hostile;
    if (!hostile) missing('hostile');
    else {
      const refusing = hostile.results.filter((result) => result.kind === 'refused');
      want(
        'hostile',
        '100% refused with ownership, nothing adopted or written',
        refusing.length > 0 && refusing.every((result) => result.refused && result.unchanged && result.problems.length === 0),
        `${hostile.refused}/${refusing.length} refused, ${hostile.unchanged}/${refusing.length} unchanged`,
      );
      const squatted = hostile.results.filter((result) => result.kind === 'not-served');
      if (squatted.length > 0) {
        const notServed = squatted.filter((result) => result.refused && result.problems.length === 0).length;
        want('hostile', "a squatter on an Agent's port is never taken for its gateway", notServed === squatted.length, `${notServed}/${squatted.length} not served`);
      }
      want(
        'hostile',
        'links planted by an Agent are never followed',
        hostile.results.every((result) => result.targetsUnchanged) && hostile.results.filter((result) => result.kind === 'not-followed').every((result) => result.problems.length === 0),
        `${hostile.targetsUnchanged}/${hostile.cases} link targets unchanged`,
      );
    }
  }
  if (run.includes('secrets')) {
    const secrets = sections.secrets;
    if (!secrets) missing('secrets');
    else {
      want(
        'secrets',
        'zero sightings',
        secrets.sightings === 0,
        `${secrets.sightings} sightings in ${secrets.corpora.length} corpora; ${secrets.helperInvocationsSampled.host} helper invocations sampled on the host argv, ${secrets.helperInvocationsSampled.local} on the local one`,
      );
      want(
        'secrets',
        'every corpus collected and every check ran',
        secrets.problems.length === 0 && secrets.corpora.every((corpus) => corpus.bytes > 0 || corpus.name === 'gateway journal'),
        secrets.problems.join('; ') || `${secrets.corpora.length} corpora`,
      );
    }
  }
  for (const [section, lanes, summary] of [
    ['crash-points', ['helper', 'children'], sections.crashPoints],
    ['injected-errors', ['errors'], sections.injectedErrors],
  ] as const) {
    if (!run.includes(section)) continue;
    if (!summary) {
      missing(section);
      continue;
    }
    const rowsOf = (lane: string) => summary.rows.filter((row) => row.lane === lane);
    // An operation with no points in a lane (no child touches shadow's files while stopping) has nothing to cut there.
    const absent = lanes.flatMap((lane) =>
      CRASH_OPERATIONS.filter((op) => !rowsOf(lane).some((row) => row.operation === op && (row.trials > 0 || (row.points === 0 && lane === 'children')))).map((op) => `${op} (${lane})`),
    );
    want(
      section,
      `every mutating operation counted and cut${lanes.length > 1 ? ' in both lanes' : ''}`,
      absent.length === 0,
      absent.length ? `not cut: ${absent.join(', ')}` : summary.rows.map((row) => `${row.operation}/${row.lane} ${row.trials}`).join(', '),
    );
    want(section, 'zero invariant violations', summary.violations === 0, `${summary.violations} trials with violations`);
    want(section, '100% convergence', summary.nonConverged === 0, `${summary.trials - summary.nonConverged}/${summary.trials} converged`);
  }
  if (run.includes('hostile-tenants')) {
    if (!sections.hostileTenants) missing('hostile-tenants');
    else for (const target of tenantTargets(sections.hostileTenants)) want('hostile-tenants', target.name, target.met, target.detail);
  }
  return targets;
}

/** Per operation: how many of its kills left an intermediate state on the host (`ensure-namespace 3/56 (5%)`). */
export function intermediateShares(summary: TrialSummary): string {
  return Object.entries(summary.by)
    .map(([op, entry]) => `${op} ${entry.intermediate}/${entry.trials} (${entry.trials ? Math.round((100 * entry.intermediate) / entry.trials) : 0}%)`)
    .join(', ');
}

/** Per operation: how many of its kills fell between two of its changes, and how many of those left a partial state. */
export function midwayShares(summary: TrialSummary): string {
  return Object.entries(summary.by)
    .map(([op, entry]) => `${op} ${entry.midway}/${entry.trials} (${entry.trials ? Math.round((100 * entry.midway) / entry.trials) : 0}%, ${entry.intermediate} partial)`)
    .join(', ');
}

/** The lines printed at the end of a run. */
export function summaryLines(results: Results): string[] {
  const s = results.sections;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const lines = [`chaos ${results.mode} campaign, seed ${results.seed}: ${results.ok ? 'all targets met' : 'TARGETS MISSED'} in ${seconds(results.durationMs)}`];
  if (s.kill) {
    const midway = Object.values(s.kill.by).reduce((sum, entry) => sum + entry.midway, 0);
    lines.push(
      `  kill (ssh client SIGKILL): ${s.kill.trials} trials (${midway} cut between two changes, ${s.kill.effects.intermediate} of them leaving a partial state; ${s.kill.completedFirst} completed first), ${s.kill.violations} violations, ${s.kill.nonConverged} not converged [${seconds(s.kill.durationMs)}]`,
    );
    lines.push(`     cut between two changes (partial: left an intermediate state, the rest undone by the helper): ${midwayShares(s.kill)}`);
  }
  if (results.laneDocuments)
    lines.push(
      `  lane document sentinel: ${results.laneDocuments.sightings} sightings in ${results.laneDocuments.corpora.length} corpora (${results.laneDocuments.corpora.reduce((sum, c) => sum + c.bytes, 0)} bytes)`,
    );
  if (s.faults)
    lines.push(
      `  faults (host faults): ${s.faults.trials} trials (${Object.entries(s.faults.by)
        .map(([k, v]) => `${k} ${v.trials}`)
        .join(', ')}), ${s.faults.violations} violations, ${s.faults.nonConverged} not converged [${seconds(s.faults.durationMs)}]`,
    );
  if (s.races)
    lines.push(
      `  races: ${s.races.allocations} allocations, ${s.races.duplicatePorts} duplicate ports, ${s.races.duplicateAccounts} duplicate accounts; prepare vs delete ${s.races.prepareVsDelete.rounds} rounds, ${s.races.prepareVsDelete.inconsistent} inconsistent; ${s.races.violations.length} violations [${seconds(s.races.durationMs)}]`,
    );
  if (s.badInput)
    lines.push(
      `  bad-input: ${s.badInput.cases} cases, ${s.badInput.refused} refused, ${s.badInput.classified} classified, ${s.badInput.unchanged} unchanged (${s.badInput.batches} tree comparisons) [${seconds(s.badInput.durationMs)}]`,
    );
  if (s.hostile)
    lines.push(
      `  hostile (hostile host state): ${s.hostile.cases} cases, ${s.hostile.refused} refused, ${s.hostile.unchanged} unchanged, ${s.hostile.notFollowed} planted-link cases not followed [${seconds(s.hostile.durationMs)}]`,
    );
  if (s.secrets)
    lines.push(
      `  secrets: ${s.secrets.sightings} sightings in ${s.secrets.corpora.length} corpora (${s.secrets.helperInvocationsSampled.host + s.secrets.helperInvocationsSampled.local} helper invocations sampled on argv) [${seconds(s.secrets.durationMs)}]`,
    );
  for (const [label, c] of [
    ['crash-points (strace SIGKILL)', s.crashPoints],
    ['injected-errors (ENOSPC, EIO)', s.injectedErrors],
  ] as const) {
    if (c)
      lines.push(
        `  ${label}: ${c.trials} trials at ${c.exact}/${c.tried} exact points (${c.step === 1 ? 'every point' : `1 point in ${c.step}`})${c.offTarget ? `, ${c.offTarget} off target` : ''}, ${c.violations} violations, ${c.nonConverged} not converged [${seconds(c.durationMs)}]`,
      );
  }
  if (s.hostileTenants) {
    const t = s.hostileTenants;
    const missed = results.targets.filter((target) => target.section === 'hostile-tenants' && !target.met).length;
    lines.push(
      `  hostile-tenants: ${t.lock.length} lock-holder trials, ${t.trickle.length} trickling /readyz, forged audit, huge trees (${t.plan.treeDepth} levels, ${t.plan.treeFiles} files), placeholder readers: ${t.placeholders?.sightings ?? 0} sightings, ${missed} targets missed [${seconds(t.durationMs)}]`,
    );
  }
  for (const target of results.targets.filter((t) => !t.met)) lines.push(`  MISSED ${target.section}: ${target.name} (${target.detail})`);
  for (const error of results.errors) lines.push(`  ERROR ${error}`);
  return lines;
}
