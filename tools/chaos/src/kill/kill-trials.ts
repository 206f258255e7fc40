// Client kills: SIGKILL of the local ssh client during every mutating operation, in Agent lifecycles
// that walk through all eight of them; then invariants and a retry. The kill is placed by the
// helper's own progress: right after one of the progress lines the operation prints (one as it
// begins each change), drawn mostly among those with a later change after them (kill-line.ts), so
// where it lands does not depend on the machine's load.
import { encodeArgument, MUTATING_OPERATIONS, type MutatingOperation } from '@occ-ssh/protocol';
import { helperOf, listingOf, runSteps } from '../host/collector.js';
import { DEFAULT_PROGRESS_LINES, progressLinesOf, RecentMedians } from '../trials/recent-medians.js';
import type { MutatingArgs } from '../host-state/expectations.js';
import type { Listing } from '../host/listing.js';
import { auditOf, call, envelopeFor } from '@occ-ssh/test-support';
import { activateArgs, activateSetUp, ownerOf, prepareArgs, setupArgs, targetArgs } from '../host/fixture-args.js';
import { sampleArgv } from '../secrets/argv-sampler.js';
import { LANE_DOCUMENT_SENTINEL, laneJournals } from '../secrets/lane-documents.js';
import type { Corpus } from '../secrets/sightings.js';
import { installSetupGateway } from '../host/setup-gateway.js';
import type { Rng } from '../campaign/rng.js';
import { delayArgv } from '../crash-points/strace-log.js';
import type { HostLink } from '../host/ssh.js';
import { runTrial, type TrialRecord } from '../trials/trial.js';
import { aimsBetweenChanges, killLine } from './kill-line.js';
import { STEP_DELAY_MS, StepDelays } from './step-delay.js';

/** The operations these lifecycles cut; setup-workspace runs native setup through the lane's setup gateway (setup-gateway.ts). */
export const KILL_OPERATIONS: readonly MutatingOperation[] = MUTATING_OPERATIONS;

/** How every life here begins: the Namespace, a first revision, its workspace setup, and the activation of that setup. */
function opening(tag: string, rng: Rng) {
  const owner = ownerOf(tag);
  const p1 = prepareArgs(owner, 1, { readyAfterMs: rng.int(0, 600) });
  const setup = setupArgs(p1, LANE_DOCUMENT_SENTINEL);
  const steps: MutatingArgs[] = [
    { operation: 'ensure-namespace', args: { namespace: owner.namespace } },
    { operation: 'prepare-revision', args: p1 },
    { operation: 'setup-workspace', args: setup },
    { operation: 'activate-revision', args: activateSetUp(p1, setup) },
  ];
  return { owner, p1, steps };
}

/** One Agent's life: every mutating operation, twice for activation, ending with deletion. */
function lifecycle(tag: string, rng: Rng): MutatingArgs[] {
  const { owner, p1, steps } = opening(tag, rng);
  const p2 = prepareArgs(owner, 2, { readyAfterMs: rng.int(0, 600) });
  steps.push(
    { operation: 'prepare-revision', args: p2 },
    { operation: 'activate-revision', args: activateArgs(p2) },
    { operation: 'retire-revision', args: targetArgs(p1) },
    { operation: 'stop-revision', args: targetArgs(p2) },
  );
  // Either delete a Namespace whose gateway runs, or delete the Agent as OCC does (its last snapshot
  // retired while current, then the Agent) and then its emptied Namespace.
  if (rng.chance(0.5)) steps.push({ operation: 'activate-revision', args: activateArgs(p2) });
  else steps.push({ operation: 'retire-revision', args: targetArgs(p2) }, { operation: 'delete-agent', args: { owner } });
  steps.push({ operation: 'delete-namespace', args: { namespace: owner.namespace } });
  return steps;
}

export interface LaneResult {
  records: TrialRecord[];
  durations: Record<string, number>;
  /** The operations whose change system calls the lane came to hold longer than STEP_DELAY_MS, and for how long. */
  stepDelayMs: Record<string, number>;
  /** What the lane kept that its document sentinel must not be in: argv sampled while setup-workspace ran, audit lines, the journal. */
  corpora: Corpus[];
}

/**
 * Measures each operation once, unkilled, through a fresh client, so kill instants are drawn
 * within what the operation really takes on this host under this load: its duration, and from its
 * audit line the changes it makes, which place the kills among its own progress lines. The shortest lifecycle that
 * runs all eight: stop of a running gateway, and retirement of the current revision (which stops it).
 */
async function calibrate(link: HostLink, rng: Rng, lane: string, durations: RecentMedians, lines: RecentMedians): Promise<void> {
  const { owner, p1, steps } = opening(`${lane}cal`, rng);
  steps.push(
    { operation: 'stop-revision', args: targetArgs(p1) },
    { operation: 'activate-revision', args: activateArgs(p1) },
    { operation: 'retire-revision', args: targetArgs(p1) },
    { operation: 'delete-agent', args: { owner } },
    { operation: 'delete-namespace', args: { namespace: owner.namespace } },
  );
  for (const step of steps) {
    const outcome = await call(link, step.operation, step.args as never, { wrap: SLOW_HELPER });
    if (!outcome.line?.ok) throw new Error(`calibration ${step.operation} failed: ${outcome.line && !outcome.line.ok ? outcome.line.error.message : `ssh exit ${String(outcome.code)}`}`);
    durations.observe(step.operation, outcome.ms);
    const audit = outcome.requestId ? await auditOf(link, outcome.requestId) : undefined;
    lines.observe(step.operation, audit ? progressLinesOf(audit.changes, outcome.heartbeats.length) : outcome.heartbeats.length);
  }
}

/**
 * A kill must cross the client, the network and sshd before the helper's next checkpoint can see
 * it, and most of the helper's steps take well under a millisecond: at full speed nearly every kill
 * of a short operation lands after it has finished. So the helper runs under strace (hosts of the
 * strace variant), which delays each of its and its children's renames, unlinks, mkdirs, chowns,
 * chmods and fsyncs: a slow disk. The kill then meets the helper between two changes, which is the
 * interruption this section is for; an operation whose kills keep arriving late is held longer
 * (step-delay.ts). The helper is the shipped artifact, unchanged.
 */
export const SLOW_HELPER = delayArgv(STEP_DELAY_MS);

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
  link.useGateway(await installSetupGateway(link));
  const durations = new RecentMedians();
  const lines = new RecentMedians(DEFAULT_PROGRESS_LINES);
  const delays = new StepDelays();
  await calibrate(link, rng, lane, durations, lines);
  const handshake = await handshakeMs(link);
  const records: TrialRecord[] = [];
  const argv = { host: [] as string[], local: [] as string[] };
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
        if (index > 0) await call(link, last.operation, last.args as never, { send: link.mux });
        break;
      }
      const measuredMs = durations.estimate(step.operation);
      // By the step's place in the lifecycle: a second prepare (the account exists) or a retirement
      // of a revision that is not current prints fewer lines than the first of its operation.
      const stepKey = `${step.operation}#${index}`;
      const progressLines = Math.max(1, lines.estimate(lines.has(stepKey) ? stepKey : step.operation));
      const afterLine = killLine(rng, progressLines);
      let first: Awaited<ReturnType<typeof call>> | undefined;
      const { record, after } = await runTrial({
        link,
        step,
        before,
        fault: 'ssh-client-sigkill',
        atMs: 0,
        measuredMs,
        interrupted: async () => {
          const cut = () => call(link, step.operation, step.args as never, { killAfterLines: afterLine, wrap: delayArgv(delays.of(step.operation)) });
          first = step.operation === 'setup-workspace' ? await sampleArgv(link, cut, argv) : await cut();
          return first;
        },
      });
      record.atMs = first?.killedAtMs ?? record.firstMs;
      record.killAfterLine = afterLine;
      record.progressLines = progressLines;
      const helper = first?.requestId ? await auditOf(link, first.requestId) : undefined;
      if (helper) record.helper = helper;
      record.midway = record.effect === 'intermediate' || (record.effect === 'none' && helper?.outcome === 'cancelled' && helper.changes > 0);
      delays.observe(step.operation, aimsBetweenChanges(afterLine, progressLines), record.completedFirst || record.effect === 'complete');
      // A kill that landed before any effect leaves the whole operation to the retry (timed on the
      // host, plus what a fresh client adds); a call that completed before its kill was timed and
      // counted whole. Both keep the models on what the operation does under the current load.
      if (record.effect === 'none' && record.retry.ok) durations.observe(step.operation, record.retry.ms + handshake);
      else if (record.completedFirst && !record.firstError) {
        durations.observe(step.operation, record.firstMs);
        if (first) lines.observe(stepKey, helper?.outcome === 'ok' ? progressLinesOf(helper.changes, first.heartbeats.length) : first.heartbeats.length);
      }
      records.push(record);
      progress(record);
      before = after;
    }
  }
  const corpora: Corpus[] = [
    { name: `kill lane ${lane}: host argv during setup-workspace`, text: argv.host.join('\n'), argv: true },
    { name: `kill lane ${lane}: local argv during setup-workspace`, text: argv.local.join('\n'), argv: true },
    ...(await laneJournals(link, `kill lane ${lane}`)),
  ];
  return { records, durations: durations.snapshot(), stepDelayMs: delays.snapshot(), corpora };
}
