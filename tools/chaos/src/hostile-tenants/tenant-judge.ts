// The hostile-tenants section's targets, judged on outcomes only (what the calls answered and when,
// what inventory showed, what a sibling could read or see). Pure.
import { pressureTargets } from '../pressure/pressure-judge.js';
import { describeCall, type TenantsResult, type Timed } from './tenant-results.js';

export interface TenantTarget {
  name: string;
  met: boolean;
  detail: string;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
const within = (call: Timed, boundMs: number) => call.ok && call.ms <= boundMs;

/** The calls every lock trial makes: the siblings' and the holder's own stop. */
export const LOCK_TRIAL_CALLS = ['other ensure-namespace', 'other prepare-revision', 'other activate-revision', 'same prepare-revision', 'same activate-revision', 'lock stop-revision'];

/** Every attack of the section ran (and nothing went wrong around them). */
function everyAttackRan(result: TenantsResult): TenantTarget[] {
  const targets: TenantTarget[] = [];
  const want = (name: string, met: boolean, detail: string) => targets.push({ name, met, detail });
  const ran = [
    `${result.lock.length}/${result.plan.lockTrials} lock trials`,
    `${result.trickle.length}/${result.plan.trickleTrials} trickle trials`,
    `forged audit ${result.forgedAudit ? 'ran' : 'missing'}`,
    `huge trees ${result.hugeTrees ? 'ran' : 'missing'}`,
    `placeholder readers ${result.placeholders ? 'ran' : 'missing'}`,
    ...(['planted', 'stopper', 'flood'] as const).map((name) => `${name} ${result.pressure?.[name] ? 'ran' : 'missing'}`),
  ];
  want(
    'every attack ran',
    result.problems.length === 0 &&
      result.lock.length >= result.plan.lockTrials &&
      result.trickle.length >= result.plan.trickleTrials &&
      !!result.forgedAudit &&
      !!result.hugeTrees &&
      !!result.placeholders &&
      !!result.pressure?.planted &&
      !!result.pressure.stopper &&
      !!result.pressure.flood,
    [...ran, ...result.problems].join('; '),
  );
  return targets;
}

/**
 * How much longer than beside the calm gateway a call may take with the holder attacking: a held
 * lock makes a sibling wait out the helper's 30-second lock timeout and fail, far past this on any
 * machine where the calm calls take seconds; load alone varies a call by less.
 */
const CALM_FACTOR = 3;

/** A lock-holding gateway delays neither its siblings nor its own stop. */
function lockTargets(result: TenantsResult): TenantTarget[] {
  const targets: TenantTarget[] = [];
  const want = (name: string, met: boolean, detail: string) => targets.push({ name, met, detail });
  const b = result.bounds;
  const calmMs = (key: string) => (result.lockCalm ?? []).find((call) => call.ok && `${call.who} ${call.operation}` === key)?.ms ?? 0;
  const boundOf = (key: string) => Math.max(b.operationMs, CALM_FACTOR * calmMs(key));
  const lockMet = result.lock.every(
    (trial) => trial.problems.length === 0 && LOCK_TRIAL_CALLS.every((key) => trial.calls.some((call) => `${call.who} ${call.operation}` === key && within(call, boundOf(key)))),
  );
  const calm = (result.lockCalm ?? []).map(describeCall).join(', ') || 'none';
  want(
    `a lock-holding gateway delays no sibling operation and not its own stop (each succeeds within ${seconds(b.operationMs)}, or ${CALM_FACTOR}x the same call beside the calm gateway)`,
    result.lock.length > 0 && lockMet,
    [`calm: ${calm}`, ...result.lock.map((trial, index) => `trial ${index + 1} (${trial.attacker}): ${[...trial.calls.map(describeCall), ...trial.problems].join(', ')}`)].join('; '),
  );
  return targets;
}

/** A trickling /readyz: activation ends in time, and inventory and siblings are not held up. */
function trickleTargets(result: TenantsResult): TenantTarget[] {
  const targets: TenantTarget[] = [];
  const want = (name: string, met: boolean, detail: string) => targets.push({ name, met, detail });
  const b = result.bounds;
  const trickles = result.trickle;
  const trickleDetail = (pick: (trial: (typeof trickles)[number]) => Timed) =>
    trickles.map((trial, index) => `trial ${index + 1}: ${[describeCall(pick(trial)), ...trial.problems].join(', ')}`).join('; ') || 'no trial';
  const readinessBound = b.readinessTimeoutMs + b.readinessMarginMs;
  want(
    `a trickling /readyz: activation answers not-ready within readinessTimeoutMs + ${seconds(b.readinessMarginMs)} (${seconds(readinessBound)})`,
    trickles.length > 0 && trickles.every((trial) => trial.problems.length === 0 && trial.activation.code === 'not-ready' && trial.activation.ms <= readinessBound),
    trickleDetail((trial) => trial.activation),
  );
  want(
    `inventory answers within ${seconds(b.inventoryMs)} while a gateway trickles`,
    trickles.length > 0 && trickles.every((trial) => within(trial.inventory, b.inventoryMs)),
    trickleDetail((trial) => trial.inventory),
  );
  want(
    `a sibling activates within ${seconds(b.operationMs)} while a gateway trickles`,
    trickles.length > 0 && trickles.every((trial) => within(trial.sibling, b.operationMs)),
    trickleDetail((trial) => trial.sibling),
  );
  return targets;
}

/** Forged audit lines are never shown as the helper's. */
function auditTargets(result: TenantsResult): TenantTarget[] {
  const targets: TenantTarget[] = [];
  const want = (name: string, met: boolean, detail: string) => targets.push({ name, met, detail });
  const audit = result.forgedAudit;
  want(
    'forged audit lines are never shown, the real ones always are',
    !!audit && audit.problems.length === 0 && audit.inventory.ok && audit.forgedShown === 0 && audit.realRequests.length > 0 && audit.realShown === audit.realRequests.length,
    audit
      ? `${audit.forgedWritten} forged lines written (${audit.forgedInJournal} in the journal under the helper's tag); recentAudit showed ${audit.forgedShown} forged and ${audit.realShown}/${audit.realRequests.length} real of ${audit.recentAudit} lines${audit.problems.length ? `; ${audit.problems.join('; ')}` : ''}`
      : 'did not run',
  );
  return targets;
}

/** Huge trees and planted links: deletion completes with heartbeats, and never follows a link. */
function treeTargets(result: TenantsResult): TenantTarget[] {
  const targets: TenantTarget[] = [];
  const want = (name: string, met: boolean, detail: string) => targets.push({ name, met, detail });
  const b = result.bounds;
  const trees = result.hugeTrees;
  const treeProblems = trees?.problems.filter((problem) => !problem.startsWith('changed:')) ?? [];
  want(
    `huge trees: delete-namespace completes within ${b.deleteAttempts} attempts, heartbeats never ${seconds(b.heartbeatGapMs)} apart`,
    !!trees && !!trees.planted && treeProblems.length === 0 && trees.deleted && trees.attempts.every((attempt) => attempt.code !== 'no-answer' && attempt.maxHeartbeatGapMs <= b.heartbeatGapMs),
    trees
      ? `${trees.planted ? `planted ${trees.planted.depth} levels and ${trees.planted.files} files in ${seconds(trees.planted.ms)}` : 'nothing planted'}; ${trees.attempts
          .map((attempt) => `${describeCall(attempt)}, ${attempt.heartbeats} heartbeats, longest gap ${(attempt.maxHeartbeatGapMs / 1000).toFixed(1)} s`)
          .join('; ')}; ${trees.deleted ? 'deleted' : 'NOT deleted'}${treeProblems.length ? `; ${treeProblems.join('; ')}` : ''}`
      : 'did not run',
  );
  want(
    'links planted in home/ and state/ are never followed by deletion',
    !!trees && !!trees.planted && trees.targetsUnchanged,
    trees ? (trees.targetsUnchanged ? 'link targets unchanged' : trees.problems.filter((problem) => problem.startsWith('changed:')).join('; ')) : 'did not run',
  );
  return targets;
}

/** Placeholders and sibling state stay unseen from inside a unit. */
function readerTargets(result: TenantsResult): TenantTarget[] {
  const targets: TenantTarget[] = [];
  const want = (name: string, met: boolean, detail: string) => targets.push({ name, met, detail });
  const readers = result.placeholders;
  want(
    'launch placeholders: zero sightings by sibling gateways and accounts, and the gateway receives its own',
    !!readers && readers.problems.length === 0 && readers.delivered && readers.corpora.length > 0 && readers.sightings === 0,
    readers
      ? `${readers.sightings} sightings in ${readers.corpora.length} dumps${readers.found.length ? ` (${readers.found.map((group) => `${group.corpus} ${group.encoding} ${group.count}`).join(', ')})` : ''}; delivered to the gateway: ${readers.delivered ? 'yes' : 'NO'}${readers.problems.length ? `; ${readers.problems.join('; ')}` : ''}`
      : 'did not run',
  );
  const judged = readers?.visibility.filter((row) => row.category !== 'reported') ?? [];
  const revealed = judged.filter((row) => row.revealed);
  want(
    'the shared root, the accounts directory and sibling Agents are invisible from inside a unit',
    judged.length > 0 && revealed.length === 0,
    judged.length === 0
      ? 'nothing probed'
      : revealed.length === 0
        ? `${judged.length} probes, nothing revealed`
        : revealed.map((row) => `${row.gateway}: ${row.category} ${row.path} (${row.seen})`).join('; '),
  );
  return targets;
}

/** Every target of the section, in the order they are listed; the first is that the attacks ran. */
const TARGETS: readonly ((result: TenantsResult) => TenantTarget[])[] = [
  everyAttackRan,
  lockTargets,
  trickleTargets,
  auditTargets,
  treeTargets,
  readerTargets,
  (result) => pressureTargets(result.pressure ?? {}),
];

export function tenantTargets(result: TenantsResult): TenantTarget[] {
  return TARGETS.flatMap((judge) => judge(result));
}

/** Attacks whose outcome missed (for the counts): the targets not met, beside the one that the attacks ran. */
export function tenantViolations(result: TenantsResult): number {
  return tenantTargets(result).filter((target, index) => index > 0 && !target.met).length;
}
