// The faults section: faults on the host side while an activation runs: the helper SIGKILLed, sshd
// restarted, the host rebooted, and activations of a revision that never becomes ready
// (served.json must never name it; a new revision recovers). After each: invariants, then a retry
// that must converge. The unlocked readiness wait has its lane in wait-faults.ts.
import { unitName } from '@occ-ssh/markers';
import { encodeArgument, type OperationArgs, type OperationName } from '@occ-ssh/protocol';
import { helperOf, listingOf, runSteps } from '../host/collector.js';
import type { Listing } from '../host/listing.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, envelopeFor, ok, type CallOutcome } from '@occ-ssh/test-support';
import { activateArgs, ownerOf, prepareArgs, targetArgs } from '../host/fixture-args.js';
import type { Rng } from '../campaign/rng.js';
import type { HostLink } from '../host/ssh.js';
import { runTrial, type TrialRecord } from '../trials/trial.js';

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

/** One round trip: retire the revisions the last trial left behind, stage the candidate, list. */
async function stage(link: HostLink, retirePrevious: OperationArgs<'retire-revision'>[], candidate: OperationArgs<'prepare-revision'>): Promise<Listing> {
  const setup: [OperationName, unknown][] = [...retirePrevious.map((args) => ['retire-revision', args] as [OperationName, unknown]), ['prepare-revision', candidate]];
  const steps = await runSteps(link, [...setup.map(([operation, args]) => ({ helper: encodeArgument(envelopeFor(link, operation, args as never)) })), { collect: {} }]);
  for (const [index, [operation]] of setup.entries()) {
    if (!helperOf(steps[index]).line?.ok) throw new Error(`fault lane: ${operation} failed before a trial`);
  }
  return listingOf(steps[steps.length - 1]);
}

interface FaultContext {
  link: HostLink;
  /** Sends the activation through a fresh client. */
  send: () => Promise<CallOutcome>;
  args: OperationArgs<'activate-revision'>;
  atMs: number;
  unit: string;
  candidateId: string;
}

interface Fault {
  interrupted: () => Promise<CallOutcome>;
  /** What must hold right after the fault, before the retry. */
  afterFault?: (listing: Listing) => string[];
}

/** How each kind of fault interrupts the activation, and what it must leave. */
const FAULTS: { [K in FaultKind]: (f: FaultContext) => Fault } = {
  'helper-sigkill': ({ link, send, atMs }) => ({ interrupted: () => withFault(send, atMs, () => link.exec(['pkill', '-KILL', '-f', `^${link.nodePath} - `])) }),
  'sshd-restart': ({ link, send, atMs }) => ({ interrupted: () => withFault(send, atMs, () => link.exec(['systemctl', 'restart', 'ssh'])) }),
  reboot: ({ link, send, atMs, unit }) => ({
    interrupted: () =>
      withFault(send, atMs, async () => {
        await link.host.reboot();
        await link.closeMaster();
      }),
    afterFault: (listing) => {
      const state = listing.units.find((entry) => entry.name === unit);
      return state?.unitFileState === 'enabled' ? [] : [`after the reboot the unit is ${state?.unitFileState ?? 'missing'}, not enabled`];
    },
  }),
  'never-ready': ({ link, args, atMs, candidateId }) => ({
    interrupted: () => call(link, 'activate-revision', args, { killAfterMs: atMs }),
    afterFault: (listing) => servedNames(listing, candidateId),
  }),
};

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
    const before = await stage(link, retirePrevious, candidate);
    const args: OperationArgs<'activate-revision'> = activateArgs(candidate, kind === 'never-ready' ? UNREADY_TIMEOUT_MS : 30_000);
    const measuredMs = kind === 'never-ready' ? activateMs + UNREADY_TIMEOUT_MS : activateMs;
    const atMs = rng.uniform(0, measuredMs);
    const send = () => call(link, 'activate-revision', args);
    const { interrupted, afterFault } = FAULTS[kind]({ link, send, args, atMs, unit: unitName(owner.agent.id), candidateId: candidate.revision.id });
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

export function servedNames(listing: Listing, revisionId: string): string[] {
  const served = listing.entries.find((entry) => entry.path.endsWith('/served.json') && entry.text?.includes(`"revisionId": "${revisionId}"`));
  return served ? [`served.json names ${revisionId}, which never became ready`] : [];
}

function hasServed(listing: Listing): boolean {
  return listing.entries.some((entry) => entry.path.startsWith('namespaces/') && entry.path.endsWith('/served.json'));
}
