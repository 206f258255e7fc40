// Section a: SIGKILL of the local ssh client at a uniformly random instant during every mutating
// operation, in Agent lifecycles that walk through all six of them; then invariants and a retry.
import { encodeArgument } from '@occ-ssh/protocol';
import { helperOf, listingOf, runSteps } from './collector.js';
import { DurationModel } from './durations.js';
import type { MutatingArgs } from './expectations.js';
import type { Listing } from './listing.js';
import { activateArgs, call, envelopeFor, ownerOf, prepareArgs, targetArgs } from './ops.js';
import type { Rng } from './rng.js';
import type { HostLink } from './ssh.js';
import { runTrial, type TrialRecord } from './trial.js';

/** One Agent's life: every mutating operation, twice for activation, ending with deletion. */
export function lifecycle(tag: string, rng: Rng): MutatingArgs[] {
  const owner = ownerOf(tag);
  const p1 = prepareArgs(owner, 1, { readyAfterMs: rng.int(0, 600) });
  const p2 = prepareArgs(owner, 2, { readyAfterMs: rng.int(0, 600) });
  const steps: MutatingArgs[] = [
    { operation: 'ensure-namespace', args: { namespace: owner.namespace } },
    { operation: 'prepare-revision', args: p1 },
    { operation: 'activate-revision', args: activateArgs(p1) },
    { operation: 'prepare-revision', args: p2 },
    { operation: 'activate-revision', args: activateArgs(p2) },
    { operation: 'retire-revision', args: targetArgs(p1) },
    { operation: 'stop-revision', args: targetArgs(p2) },
  ];
  // Either delete a Namespace whose gateway runs, or one whose last snapshot was retired while current.
  if (rng.chance(0.5)) steps.push({ operation: 'activate-revision', args: activateArgs(p2) });
  else steps.push({ operation: 'retire-revision', args: targetArgs(p2) });
  steps.push({ operation: 'delete-namespace', args: { namespace: owner.namespace } });
  return steps;
}

export interface LaneResult {
  records: TrialRecord[];
  durations: Record<string, number>;
}

/**
 * Measures each operation once, unkilled, through a fresh client, so kill instants are drawn
 * within what the operation really takes on this host under this load. The shortest lifecycle that
 * runs all six: stop of a running gateway, and retirement of the current revision (which stops it).
 */
async function calibrate(link: HostLink, rng: Rng, lane: string, durations: DurationModel): Promise<void> {
  const owner = ownerOf(`${lane}cal`);
  const p1 = prepareArgs(owner, 1, { readyAfterMs: rng.int(0, 600) });
  const steps: MutatingArgs[] = [
    { operation: 'ensure-namespace', args: { namespace: owner.namespace } },
    { operation: 'prepare-revision', args: p1 },
    { operation: 'activate-revision', args: activateArgs(p1) },
    { operation: 'stop-revision', args: targetArgs(p1) },
    { operation: 'activate-revision', args: activateArgs(p1) },
    { operation: 'retire-revision', args: targetArgs(p1) },
    { operation: 'delete-namespace', args: { namespace: owner.namespace } },
  ];
  for (const step of steps) {
    const outcome = await call(link, step.operation, step.args as never);
    if (!outcome.line?.ok) throw new Error(`calibration ${step.operation} failed: ${outcome.line && !outcome.line.ok ? outcome.line.error.message : `ssh exit ${String(outcome.code)}`}`);
    durations.observe(step.operation, outcome.ms);
  }
}

/** What a fresh client costs before the helper starts (connect, authenticate, start a command): median of three. */
async function handshakeMs(link: HostLink): Promise<number> {
  const fresh: number[] = [];
  for (let i = 0; i < 3; i += 1) fresh.push((await link.fresh('true')).ms);
  return [...fresh].sort((a, b) => a - b)[1]!;
}

/**
 * Runs `trials` kill trials through consecutive lifecycles. Lane `offset` starts its first
 * lifecycle that many steps in (the steps before it run unfaulted), so that short lanes together
 * still cut every operation.
 */
export async function killLane(link: HostLink, rng: Rng, trials: number, lane: string, offset: number, progress: (record: TrialRecord) => void): Promise<LaneResult> {
  const durations = new DurationModel();
  await calibrate(link, rng, lane, durations);
  const handshake = await handshakeMs(link);
  const records: TrialRecord[] = [];
  let before: Listing | undefined;
  for (let cycle = 0; records.length < trials; cycle += 1) {
    const steps = lifecycle(`${lane}c${cycle}`, rng);
    const skip = cycle === 0 ? offset % steps.length : 0;
    if (before === undefined) {
      const setup = steps.slice(0, skip);
      const results = await runSteps(link, [...setup.map((step) => ({ helper: encodeArgument(envelopeFor(link, step.operation, step.args as never)) })), { collect: {} }]);
      for (const [index, step] of setup.entries()) {
        if (!helperOf(results[index]).line?.ok) throw new Error(`kill lane ${lane}: setup ${step.operation} failed`);
      }
      before = listingOf(results[results.length - 1]);
    }
    for (const [index, step] of steps.entries()) {
      if (index < skip) continue;
      if (records.length >= trials) {
        // Leave no half-lived Agent behind: finish the lifecycle's deletion without a fault.
        const last = steps[steps.length - 1]!;
        if (index > 0) await call(link, last.operation, last.args as never, { mux: true });
        break;
      }
      const measuredMs = durations.estimate(step.operation);
      const atMs = rng.uniform(0, measuredMs);
      const { record, after } = await runTrial({
        link,
        step,
        before,
        fault: 'ssh-client-sigkill',
        atMs,
        measuredMs,
        interrupted: () => call(link, step.operation, step.args as never, { killAfterMs: atMs }),
      });
      // A kill that landed before any effect leaves the whole operation to the retry (timed on the
      // host, plus what a fresh client adds); a call that completed before its kill was timed whole.
      // Both keep the window on what the operation takes under the current load.
      if (record.effect === 'none' && record.retry.ok) durations.observe(step.operation, record.retry.ms + handshake);
      else if (record.completedFirst && !record.firstError) durations.observe(step.operation, record.firstMs);
      records.push(record);
      progress(record);
      before = after;
    }
  }
  return { records, durations: durations.snapshot() };
}
