// The faults section's wait lane: what may happen to an Agent while its activation waits for
// readiness without the host lock. Each fault is timed by the helper's own progress: it is injected
// once the activation has restarted the gateway (its last change) and printed a progress line from
// its wait, and the wait is sized on this machine (wait-judge.ts).
import { unitName } from '@occ-ssh/markers';
import type { OperationArgs } from '@occ-ssh/protocol';
import { call, ok } from '@occ-ssh/test-support';
import { listingOf, runSteps } from '../host/collector.js';
import { activateArgs, ownerOf, prepareArgs } from '../host/fixture-args.js';
import { servedNames } from './host-faults.js';
import { checkInvariants } from '../host-state/invariants.js';
import type { Listing } from '../host/listing.js';
import { beatAfter, progressCall, type ProgressCall } from '../host/progress-call.js';
import type { Rng } from '../campaign/rng.js';
import type { HostLink } from '../host/ssh.js';
import { runTrial, SETTINGS, type TrialRecord } from '../trials/trial.js';
import { landed, raceProblems, waitWindowMs } from './wait-judge.js';

/**
 * The kill is a trial like the others (invariants, then a retry that converges); in the other four
 * the later operation must win: the waiting activation answers a retryable conflict, served.json
 * never names its revision over the newer state, and the host keeps every invariant.
 */
export const WAIT_FAULTS = ['wait-sigkill', 'wait-stop', 'wait-retire', 'wait-delete', 'wait-newer'] as const;
type WaitFault = (typeof WAIT_FAULTS)[number];

export async function waitLane(link: HostLink, rng: Rng, progress: (record: TrialRecord) => void): Promise<TrialRecord[]> {
  const records: TrialRecord[] = [];
  for (const [index, kind] of rng.shuffle([...WAIT_FAULTS]).entries()) {
    const owner = ownerOf(`wait${index}`);
    // Through a fresh client, as the later operation will go: what a locked call costs here, now.
    const ensured = await call(link, 'ensure-namespace', { namespace: owner.namespace });
    if (!ensured.line?.ok) throw new Error('wait lane: ensure-namespace failed');
    const windowMs = waitWindowMs(ensured.ms);
    const waiting = prepareArgs(owner, 1, { readyAfterMs: windowMs });
    await ok(link, 'prepare-revision', waiting, { send: link.mux });
    const newer = prepareArgs(owner, 2, { readyAfterMs: 300 });
    if (kind === 'wait-newer') await ok(link, 'prepare-revision', newer, { send: link.mux });
    const before = listingOf((await runSteps(link, [{ collect: {} }]))[0]);
    const args = activateArgs(waiting);
    const record = kind === 'wait-sigkill' ? await killInWait(link, before, args, windowMs) : await raceInWait(link, kind, args, newer, windowMs);
    records.push(record);
    progress(record);
    if (kind !== 'wait-delete') await ok(link, 'delete-namespace', { namespace: owner.namespace }, { send: link.mux });
  }
  return records;
}

const invocationOf = async (link: HostLink, unit: string) => (await link.exec(['systemctl', 'show', '--property=InvocationID', '--value', unit])).stdout.trim();

/** Resolves, with ms since `sent`, once the gateway was restarted (its InvocationID is no longer `before`): from then on the activation waits unlocked. */
async function restarted(link: HostLink, unit: string, before: string, sent: number): Promise<number> {
  for (let i = 0; i < 400; i += 1) {
    const now = await invocationOf(link, unit);
    if (now && now !== before) return Date.now() - sent;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('wait lane: the activation never restarted its gateway');
}

/** Sends the activation; resolves once it restarted the gateway and then printed a progress line from its wait. */
async function inWait(link: HostLink, args: OperationArgs<'activate-revision'>): Promise<{ activation: ProgressCall; atMs: number }> {
  const unit = unitName(args.owner.agent.id);
  const before = await invocationOf(link, unit);
  const activation = progressCall(link, 'activate-revision', args);
  const sent = Date.now();
  await restarted(link, unit, before, sent);
  // The helper beats once a second while it waits: the next line says it is waiting, not changing.
  await beatAfter(activation, Date.now(), 5000);
  return { activation, atMs: Date.now() - sent };
}

async function killInWait(link: HostLink, before: Listing, args: OperationArgs<'activate-revision'>, windowMs: number): Promise<TrialRecord> {
  let atMs = 0;
  const unit = unitName(args.owner.agent.id);
  const { record } = await runTrial({
    link,
    step: { operation: 'activate-revision', args },
    before,
    fault: 'wait-sigkill',
    atMs: 0,
    measuredMs: windowMs,
    interrupted: async () => {
      const invocation = await invocationOf(link, unit);
      const sent = Date.now();
      const pending = call(link, 'activate-revision', args);
      atMs = await restarted(link, unit, invocation, sent);
      await link.exec(['pkill', '-KILL', '-f', `^${link.nodePath} - `]);
      return pending;
    },
  });
  return { ...record, atMs };
}

async function raceInWait(
  link: HostLink,
  kind: Exclude<WaitFault, 'wait-sigkill'>,
  args: OperationArgs<'activate-revision'>,
  newer: OperationArgs<'prepare-revision'>,
  windowMs: number,
): Promise<TrialRecord> {
  const { owner, revision } = args;
  const { activation, atMs } = await inWait(link, args);
  const later =
    kind === 'wait-stop'
      ? progressCall(link, 'stop-revision', { owner, revision })
      : kind === 'wait-retire'
        ? progressCall(link, 'retire-revision', { owner, revision })
        : kind === 'wait-delete'
          ? progressCall(link, 'delete-namespace', { namespace: owner.namespace })
          : progressCall(link, 'activate-revision', activateArgs(newer));
  const [first, second] = await Promise.all([activation.done, later.done]);
  const listing = listingOf((await runSteps(link, [{ collect: {} }]))[0]);
  const verdict = checkInvariants(listing, SETTINGS);
  const problems = [...raceProblems(kind, first, second), ...servedNames(listing, revision.id), ...verdict.pending.map((item) => `pending: ${item}`)];
  if (kind === 'wait-newer' && !listing.entries.some((entry) => entry.path.endsWith('/served.json') && entry.text?.includes(`"revisionId": "${newer.revision.id}"`))) {
    problems.push('served.json does not name the newer revision');
  }
  return {
    operation: 'activate-revision',
    subject: `${owner.namespace.id}/${owner.agent.id}/${revision.id}`,
    fault: kind,
    atMs,
    measuredMs: windowMs,
    completedFirst: first.line !== undefined,
    firstMs: first.ms,
    effect: 'complete',
    ...(first.line && !first.line.ok ? { firstError: `${first.line.error.code}: ${first.line.error.message}` } : {}),
    ...(landed(first, second) ? {} : { notLanded: true }),
    helperWaitMs: listing.quiet.waitedMs,
    violations: verdict.violations,
    pendingAfterFault: verdict.pending,
    retry: { ok: true, ms: 0 },
    problems,
  };
}
