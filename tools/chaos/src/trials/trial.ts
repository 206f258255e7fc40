// One interruption trial: run an operation with a fault, wait until the host is quiet, check the
// invariants, retry the same operation without a fault, and check that it converged.
import type { OperationName } from '@occ-ssh/protocol';
import { encodeArgument, resourcesOf } from '@occ-ssh/protocol';
import { helperOf, listingOf, runSteps } from '../host/collector.js';
import { convergenceProblems, type MutatingArgs } from '../host-state/expectations.js';
import { checkInvariants, type InvariantSettings, type Violation } from '../host-state/invariants.js';
import type { Listing } from '../host/listing.js';
import { envelopeFor, type CallOutcome } from '@occ-ssh/test-support';
import { RUNTIME_USER } from '../host/fixture-args.js';
import type { HostLink } from '../host/ssh.js';

export const SETTINGS: InvariantSettings = { user: RUNTIME_USER, portRange: { start: 18800, end: 18899 } };

export interface TrialRecord {
  operation: OperationName;
  subject: string;
  fault: string;
  /** Kill delay (client kills) or fault instant, in ms after the operation was sent. */
  atMs: number;
  measuredMs: number;
  /** Client kills: the progress line after which the client was killed, of the lines an unkilled run prints. */
  killAfterLine?: number;
  progressLines?: number;
  /** Client kills: how the helper's audit line says it ended (`cancelled` when it stopped itself) and after how many changes. */
  helper?: { outcome: string; changes: number };
  /**
   * The fault fell between two changes of the operation: it left an intermediate state, or the
   * helper stopped itself after beginning some of its changes (and undid a temp it was building).
   */
  midway?: boolean;
  /** The interrupted call still printed its result line (the fault came too late to cut it). */
  completedFirst: boolean;
  /**
   * Wait faults: the activation had answered before the later operation took the host lock, so the
   * fault could not land in the wait on this machine. Judged on the invariants only; not counted as landed.
   */
  notLanded?: boolean;
  /** How long the interrupted call ran, as the local client saw it. */
  firstMs: number;
  /**
   * What the fault left: `none` (host as before), `complete` (as after the retry) or
   * `intermediate` (neither: the operation was cut between its steps).
   */
  effect: 'none' | 'complete' | 'intermediate';
  firstError?: string;
  /** How long the checker waited for the helper to notice and stop. */
  helperWaitMs: number;
  violations: Violation[];
  pendingAfterFault: string[];
  retry: { ok: boolean; ms: number; error?: string };
  problems: string[];
  /** For a failed trial: the paths under the subject's Namespace after the fault. */
  state?: string[];
}

export interface TrialOptions {
  link: HostLink;
  step: MutatingArgs;
  before: Listing;
  fault: string;
  atMs: number;
  measuredMs: number;
  /** Runs the operation with its fault and returns the interrupted call's outcome. */
  interrupted: () => Promise<CallOutcome>;
  /** Extra convergence problems to add (e.g. a unit that did not come back enabled after a reboot). */
  afterFault?: (listing: Listing) => string[];
  /** The retry must fail with this code instead of succeeding (an activation that can never be ready). */
  retryFailsWith?: string;
  /** Also run the readers (inventory, probe) on what the fault left: each must answer, not crash. */
  readers?: boolean;
  /**
   * A helper killed between creating a temp file and renaming it cannot remove it; the next
   * operation sweeps it. Such temps are pending after the fault, and a violation only if the retry leaves them.
   */
  tempsPendingAfterFault?: boolean;
}

/** The host state that matters, without what legitimately changes on every start (gateway logs, served time, mtimes). */
function signature(listing: Listing): string {
  const entries = listing.entries
    .filter((entry) => !/(^|\/)(home|state)\/./.test(entry.path))
    .map((entry) => {
      const text = entry.path.endsWith('served.json') && entry.text ? entry.text.replace(/"servedAt": "[^"]*"/, '') : entry.text;
      return `${entry.path}|${entry.type}|${entry.uid}:${entry.gid}:${entry.mode}|${entry.target ?? ''}|${entry.sha256 ?? ''}|${text ?? ''}`;
    });
  const units = listing.units.map((unit) => `${unit.name}|${unit.head}|${unit.unitFileState}|${unit.activeState === 'active' ? 'up' : 'down'}`);
  const users = listing.users.map((user) => `${user.name}:${user.uid}:${user.gid}`);
  const groups = listing.groups.map((group) => `${group.name}:${group.gid}`);
  return JSON.stringify([entries, units, users, groups]);
}

function subjectOf(step: MutatingArgs): string {
  const ids = resourcesOf(step.operation, step.args);
  return [ids.namespaceId ?? '?', ids.agentId, ids.revisionId].filter((id) => id !== undefined).join('/');
}

export async function runTrial(options: TrialOptions): Promise<{ record: TrialRecord; after: Listing }> {
  const { link, step, before } = options;
  const first = await options.interrupted();
  // One round trip: wait for quiet and list (the state the fault left), retry, list again.
  const argument = encodeArgument(envelopeFor(link, step.operation, step.args as never));
  const readers = options.readers ? (['inventory', 'probe'] as const) : [];
  const readerSteps = readers.map((operation) => ({ helper: encodeArgument(envelopeFor(link, operation, {})) }));
  const results = await runSteps(link, [{ collect: {} }, ...readerSteps, { helper: argument }, { collect: {} }]);
  const [faultedStep, retryStep, afterStep] = [results[0], results[results.length - 2], results[results.length - 1]];
  const faulted = listingOf(faultedStep);
  const retry = helperOf(retryStep);
  const after = listingOf(afterStep);
  const afterFault = checkInvariants(faulted, SETTINGS);
  if (options.tempsPendingAfterFault) {
    afterFault.pending.push(...afterFault.violations.filter((v) => v.rule === 'temp-file').map((v) => `${v.path}: temp file of the killed write (swept by the next operation)`));
    afterFault.violations = afterFault.violations.filter((v) => v.rule !== 'temp-file');
  }
  const extra = options.afterFault?.(faulted) ?? [];
  const afterRetry = checkInvariants(after, SETTINGS);

  const problems = [...extra];
  for (const [index, operation] of readers.entries()) {
    const line = helperOf(results[index + 1]).line;
    if (!line) problems.push(`${operation} on what the fault left printed no result line`);
    else if (!line.ok) problems.push(`${operation} on what the fault left failed: ${line.error.code}: ${line.error.message}`);
  }
  const retryOk = retry.line?.ok === true;
  const retryError = retry.line && !retry.line.ok ? `${retry.line.error.code}: ${retry.line.error.message}` : retry.line ? undefined : `no result line (ssh exit ${String(retry.code)})`;
  if (options.retryFailsWith) {
    if (retryOk || (retry.line && !retry.line.ok && retry.line.error.code !== options.retryFailsWith))
      problems.push(`retry was expected to fail with ${options.retryFailsWith}, got ${retryError ?? 'success'}`);
  } else {
    if (!retryOk) problems.push(`retry failed: ${retryError ?? '?'}`);
    else {
      if (step.operation === 'prepare-revision' && retry.line!.ok && (retry.line!.result as { ready?: boolean }).ready !== true) problems.push('retry of prepare did not answer ready');
      problems.push(...convergenceProblems(step, before, after));
    }
    for (const item of afterRetry.pending) problems.push(`still pending after the retry: ${item}`);
  }
  const violations = [...afterFault.violations, ...afterRetry.violations.map((v) => ({ ...v, message: `after the retry: ${v.message}` }))];
  const record: TrialRecord = {
    operation: step.operation,
    subject: subjectOf(step),
    fault: options.fault,
    atMs: Math.round(options.atMs),
    measuredMs: Math.round(options.measuredMs),
    completedFirst: first.line !== undefined,
    firstMs: first.ms,
    effect: signature(faulted) === signature(before) ? 'none' : signature(faulted) === signature(after) ? 'complete' : 'intermediate',
    ...(first.line && !first.line.ok ? { firstError: `${first.line.error.code}: ${first.line.error.message}` } : {}),
    helperWaitMs: faulted.quiet.waitedMs,
    violations,
    pendingAfterFault: afterFault.pending,
    retry: { ok: retryOk, ms: retry.ms, ...(retryError ? { error: retryError } : {}) },
    problems,
  };
  if (violations.length > 0 || problems.length > 0)
    record.state = faulted.entries
      .map((entry) => `${entry.path} ${entry.type}${entry.target ? ` -> ${entry.target}` : ''}`)
      .filter((line) => !/\/(home|state)\//.test(line))
      .slice(0, 200);
  return { record, after };
}
