// The faults section: faults on the host side while an activation runs: the helper SIGKILLed, sshd
// restarted, the host rebooted, and activations of a revision that never becomes ready
// (served.json must never name it; a new revision recovers). After each: invariants, then a retry
// that must converge. Then the unlocked readiness wait: a kill, and a later operation on the same
// Agent, while an activation waits.
import { unitName } from '@occ-ssh/markers';
import { assertNever, encodeArgument, type OperationArgs, type OperationName } from '@occ-ssh/protocol';
import { helperOf, listingOf, runSteps } from './collector.js';
import { checkInvariants } from './invariants.js';
import type { Listing } from './listing.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, envelopeFor, ok, type CallOutcome } from '@occ-ssh/test-support';
import { activateArgs, ownerOf, prepareArgs, targetArgs } from './fixture-args.js';
import type { Rng } from './rng.js';
import type { HostLink } from './ssh.js';
import { runTrial, SETTINGS, type TrialRecord } from './trial.js';

export interface FaultPlan {
  helperKills: number;
  sshdRestarts: number;
  reboots: number;
  unready: number;
}

type FaultKind = 'helper-sigkill' | 'sshd-restart' | 'reboot' | 'never-ready';

const UNREADY_TIMEOUT_MS = 3000;

/** Runs `op` through a fresh client and fires `fault` `atMs` after sending it. */
async function withFault(op: () => Promise<CallOutcome>, atMs: number, fault: () => Promise<unknown>): Promise<CallOutcome> {
  const pending = op();
  await sleep(atMs);
  await fault();
  return pending;
}

export async function faultLane(link: HostLink, rng: Rng, plan: FaultPlan, progress: (record: TrialRecord) => void): Promise<{ records: TrialRecord[]; activateMs: number }> {
  const owner = ownerOf('faults');
  const records: TrialRecord[] = [];
  await ok(link, 'ensure-namespace', { namespace: owner.namespace }, { send: link.mux });
  let number = 1;
  let active = prepareArgs(owner, number, { readyAfterMs: 300 });
  await ok(link, 'prepare-revision', active, { send: link.mux });
  // Calibration: one unfaulted activation through a fresh client.
  const calibration = await call(link, 'activate-revision', activateArgs(active));
  if (!calibration.line?.ok) throw new Error('fault lane: calibration activation failed');
  const activateMs = calibration.ms;
  let before: Listing;

  const kinds: FaultKind[] = rng.shuffle([
    ...Array<FaultKind>(plan.helperKills).fill('helper-sigkill'),
    ...Array<FaultKind>(plan.sshdRestarts).fill('sshd-restart'),
    ...Array<FaultKind>(plan.unready).fill('never-ready'),
  ]);
  // Reboots last, so a slow reboot cannot starve the other kinds of the lane.
  kinds.push(...Array<FaultKind>(plan.reboots).fill('reboot'));

  let retirePrevious: OperationArgs<'retire-revision'>[] = [];
  for (const kind of kinds) {
    number += 1;
    const candidate = prepareArgs(owner, number, kind === 'never-ready' ? { neverReady: true } : { readyAfterMs: rng.int(200, 1200) });
    // One round trip: retire the revisions the last trial left behind, stage the candidate, list.
    const setup: [OperationName, unknown][] = [...retirePrevious.map((args) => ['retire-revision', args] as [OperationName, unknown]), ['prepare-revision', candidate]];
    const steps = await runSteps(link, [...setup.map(([operation, args]) => ({ helper: encodeArgument(envelopeFor(link, operation, args as never)) })), { collect: {} }]);
    for (const [index, [operation]] of setup.entries()) {
      if (!helperOf(steps[index]).line?.ok) throw new Error(`fault lane: ${operation} failed before a trial`);
    }
    before = listingOf(steps[steps.length - 1]);
    const args: OperationArgs<'activate-revision'> = activateArgs(candidate, kind === 'never-ready' ? UNREADY_TIMEOUT_MS : 30_000);
    const measuredMs = kind === 'never-ready' ? activateMs + UNREADY_TIMEOUT_MS : activateMs;
    const atMs = rng.uniform(0, measuredMs);
    const send = () => call(link, 'activate-revision', args);
    const unit = unitName(owner.agent.id);
    let interrupted: () => Promise<CallOutcome>;
    let afterFault: ((listing: Listing) => string[]) | undefined;
    switch (kind) {
      case 'helper-sigkill':
        interrupted = () => withFault(send, atMs, () => link.exec(['pkill', '-KILL', '-f', `^${link.nodePath} - `]));
        break;
      case 'sshd-restart':
        interrupted = () => withFault(send, atMs, () => link.exec(['systemctl', 'restart', 'ssh']));
        break;
      case 'reboot':
        interrupted = () =>
          withFault(send, atMs, async () => {
            await link.host.reboot();
            await link.closeMaster();
          });
        afterFault = (listing) => {
          const state = listing.units.find((entry) => entry.name === unit);
          return state?.unitFileState === 'enabled' ? [] : [`after the reboot the unit is ${state?.unitFileState ?? 'missing'}, not enabled`];
        };
        break;
      case 'never-ready':
        interrupted = () => call(link, 'activate-revision', args, { killAfterMs: atMs });
        afterFault = (listing) => servedNames(listing, candidate.revision.id);
        break;
      default:
        return assertNever(kind, 'fault kind');
    }
    const { record, after } = await runTrial({
      link,
      step: { operation: 'activate-revision', args },
      before,
      fault: kind,
      atMs,
      measuredMs,
      interrupted,
      ...(afterFault ? { afterFault } : {}),
      ...(kind === 'never-ready' ? { retryFailsWith: 'not-ready' } : {}),
    });
    if (kind === 'never-ready') {
      // Readiness never came, so served.json must not exist at all; then the ready revision must come back.
      record.problems.push(...servedNames(after, candidate.revision.id), ...(hasServed(after) ? ['served.json exists after an activation that never became ready'] : []));
      // OCC recovers with a new revision, never an older snapshot: activation refuses to roll back.
      number += 1;
      const recovery = prepareArgs(owner, number, { readyAfterMs: 300 });
      const prepared = await call(link, 'prepare-revision', recovery, { send: link.mux });
      const back = prepared.line?.ok ? await call(link, 'activate-revision', activateArgs(recovery), { send: link.mux }) : prepared;
      if (!back.line?.ok) record.problems.push(`recovering with a new ready revision failed: ${back.line && !back.line.ok ? back.line.error.message : 'no result line'}`);
      retirePrevious = [targetArgs(active), targetArgs(candidate)];
      active = recovery;
    } else {
      retirePrevious = [targetArgs(active)];
      active = candidate;
    }
    records.push(record);
    progress(record);
  }
  await ok(link, 'delete-namespace', { namespace: owner.namespace }, { send: link.mux });
  return { records, activateMs };
}

function servedNames(listing: Listing, revisionId: string): string[] {
  const served = listing.entries.find((entry) => entry.path.endsWith('/served.json') && entry.text?.includes(`"revisionId": "${revisionId}"`));
  return served ? [`served.json names ${revisionId}, which never became ready`] : [];
}

function hasServed(listing: Listing): boolean {
  return listing.entries.some((entry) => entry.path.startsWith('namespaces/') && entry.path.endsWith('/served.json'));
}

/**
 * What may happen to an Agent while its activation waits for readiness without the host lock: the
 * helper killed, or a stop, retire, Namespace delete or newer activation of the same Agent. The
 * kill is a trial like the others (invariants, then a retry that converges); in the other four the
 * later operation must win: the waiting activation answers a retryable conflict, served.json never
 * names its revision over the newer state, and the host keeps every invariant.
 */
export const WAIT_FAULTS = ['wait-sigkill', 'wait-stop', 'wait-retire', 'wait-delete', 'wait-newer'] as const;
type WaitFault = (typeof WAIT_FAULTS)[number];

/** Long enough for a fault to land inside the wait on a loaded host. */
const WAIT_READY_MS = 4000;

export async function waitLane(link: HostLink, rng: Rng, progress: (record: TrialRecord) => void): Promise<TrialRecord[]> {
  const records: TrialRecord[] = [];
  for (const [index, kind] of rng.shuffle([...WAIT_FAULTS]).entries()) {
    const owner = ownerOf(`wait${index}`);
    await ok(link, 'ensure-namespace', { namespace: owner.namespace }, { send: link.mux });
    const waiting = prepareArgs(owner, 1, { readyAfterMs: WAIT_READY_MS });
    await ok(link, 'prepare-revision', waiting, { send: link.mux });
    const newer = prepareArgs(owner, 2, { readyAfterMs: 300 });
    if (kind === 'wait-newer') await ok(link, 'prepare-revision', newer, { send: link.mux });
    const before = listingOf((await runSteps(link, [{ collect: {} }]))[0]);
    const args = activateArgs(waiting);
    const record = kind === 'wait-sigkill' ? await killInWait(link, before, args) : await raceInWait(link, kind, args, newer);
    records.push(record);
    progress(record);
    if (kind !== 'wait-delete') await ok(link, 'delete-namespace', { namespace: owner.namespace }, { send: link.mux });
  }
  return records;
}

/** Sends the activation and resolves once its gateway was restarted: from then on it waits unlocked. */
async function inWait(link: HostLink, args: OperationArgs<'activate-revision'>): Promise<{ pending: Promise<CallOutcome>; atMs: number }> {
  const unit = unitName(args.owner.agent.id);
  const invocation = async () => (await link.exec(['systemctl', 'show', '--property=InvocationID', '--value', unit])).stdout.trim();
  const before = await invocation();
  const sent = Date.now();
  const pending = call(link, 'activate-revision', args);
  for (let i = 0; i < 200; i += 1) {
    const now = await invocation();
    if (now && now !== before) return { pending, atMs: Date.now() - sent };
    await sleep(25);
  }
  throw new Error('wait lane: the activation never restarted its gateway');
}

async function killInWait(link: HostLink, before: Listing, args: OperationArgs<'activate-revision'>): Promise<TrialRecord> {
  let atMs = 0;
  const { record } = await runTrial({
    link,
    step: { operation: 'activate-revision', args },
    before,
    fault: 'wait-sigkill',
    atMs: 0,
    measuredMs: WAIT_READY_MS,
    interrupted: async () => {
      const { pending, atMs: at } = await inWait(link, args);
      atMs = at;
      await link.exec(['pkill', '-KILL', '-f', `^${link.nodePath} - `]);
      return pending;
    },
  });
  return { ...record, atMs };
}

async function raceInWait(link: HostLink, kind: Exclude<WaitFault, 'wait-sigkill'>, args: OperationArgs<'activate-revision'>, newer: OperationArgs<'prepare-revision'>): Promise<TrialRecord> {
  const { owner, revision } = args;
  const { pending, atMs } = await inWait(link, args);
  const later =
    kind === 'wait-stop'
      ? call(link, 'stop-revision', { owner, revision })
      : kind === 'wait-retire'
        ? call(link, 'retire-revision', { owner, revision })
        : kind === 'wait-delete'
          ? call(link, 'delete-namespace', { namespace: owner.namespace })
          : call(link, 'activate-revision', activateArgs(newer));
  const [first, second] = await Promise.all([pending, later]);
  const listing = listingOf((await runSteps(link, [{ collect: {} }]))[0]);
  const verdict = checkInvariants(listing, SETTINGS);
  const problems: string[] = [];
  if (!second.line?.ok) problems.push(`the later ${kind.slice(5)} failed: ${second.line && !second.line.ok ? second.line.error.code : 'no result line'}`);
  if (first.line?.ok !== false || first.line.error.code !== 'conflict')
    problems.push(`the waiting activation answered ${first.line ? (first.line.ok ? 'ok' : first.line.error.code) : 'nothing'}, not conflict`);
  problems.push(...servedNames(listing, revision.id), ...verdict.pending.map((item) => `pending: ${item}`));
  if (kind === 'wait-newer' && !listing.entries.some((entry) => entry.path.endsWith('/served.json') && entry.text?.includes(`"revisionId": "${newer.revision.id}"`))) {
    problems.push('served.json does not name the newer revision');
  }
  return {
    operation: 'activate-revision',
    subject: `${owner.namespace.id}/${owner.agent.id}/${revision.id}`,
    fault: kind,
    atMs,
    measuredMs: WAIT_READY_MS,
    completedFirst: first.line !== undefined,
    firstMs: first.ms,
    effect: 'complete',
    ...(first.line && !first.line.ok ? { firstError: `${first.line.error.code}: ${first.line.error.message}` } : {}),
    helperWaitMs: listing.quiet.waitedMs,
    violations: verdict.violations,
    pendingAfterFault: verdict.pending,
    retry: { ok: true, ms: 0 },
    problems,
  };
}
