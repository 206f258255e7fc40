// The host state each operation starts from in a crash-point trial, and running it under strace.
import { accountName, nsHash, unitName } from '@occ-ssh/markers';
import { assertNever, encodeArgument } from '@occ-ssh/protocol';
import { remoteCommand } from '@occ-ssh/ssh-client';
import { call, envelopeFor, ROOT, UNIT_DIR, type CallOutcome } from '@occ-ssh/test-support';
import { helperOf, runSteps, listingOf, type Step } from '../host/collector.js';
import type { MutatingArgs, MutatingOperation } from '../host-state/expectations.js';
import type { Listing } from '../host/listing.js';
import { activateArgs, activateSetUp, ownerOf, prepareArgs, RUNTIME_USER, setupArgs, siblingAgentId, siblingOf } from '../host/fixture-args.js';
import { LANE_DOCUMENT_SENTINEL } from '../secrets/lane-documents.js';
import type { HostLink } from '../host/ssh.js';
import { parseLog, straceArgv, type Injection, type Lane, type ParsedLog, type Point } from './strace-log.js';

/** The host state an operation starts from, in a Namespace of its own, and how to clear it afterwards. */
export function scenario(operation: MutatingOperation, tag: string): { setup: MutatingArgs[]; op: MutatingArgs; cleanup: MutatingArgs; then?: MutatingArgs } {
  const owner = ownerOf(tag);
  const p1 = prepareArgs(owner, 1, { readyAfterMs: 0 });
  const ensure: MutatingArgs = { operation: 'ensure-namespace', args: { namespace: owner.namespace } };
  const prepare: MutatingArgs = { operation: 'prepare-revision', args: p1 };
  const activate: MutatingArgs = { operation: 'activate-revision', args: activateArgs(p1) };
  const target = { owner, revision: p1.revision };
  const cleanup: MutatingArgs = { operation: 'delete-namespace', args: { namespace: owner.namespace } };
  switch (operation) {
    case 'ensure-namespace':
      return { setup: [], op: ensure, cleanup };
    case 'prepare-revision':
      return { setup: [ensure], op: prepare, cleanup };
    case 'activate-revision':
      return { setup: [ensure, prepare], op: activate, cleanup };
    case 'stop-revision':
      return { setup: [ensure, prepare, activate], op: { operation: 'stop-revision', args: target }, cleanup };
    case 'retire-revision':
      return { setup: [ensure, prepare, activate], op: { operation: 'retire-revision', args: target }, cleanup };
    case 'delete-agent': {
      // A running sibling in the same Namespace: its account, unit, directory and port must come through whole.
      const sibling = prepareArgs(siblingOf(owner), 1, { readyAfterMs: 0 });
      const siblingSetup: MutatingArgs[] = [
        { operation: 'prepare-revision', args: sibling },
        { operation: 'activate-revision', args: activateArgs(sibling) },
      ];
      return { setup: [ensure, prepare, activate, ...siblingSetup], op: { operation: 'delete-agent', args: { owner } }, cleanup };
    }
    case 'delete-namespace':
      return { setup: [ensure, prepare, activate], op: cleanup, cleanup };
    case 'setup-workspace': {
      // Then activation, which starts the gateway only once the marker records exactly this setup.
      const setup = setupArgs(p1, LANE_DOCUMENT_SENTINEL);
      return { setup: [ensure, prepare], op: { operation: 'setup-workspace', args: setup }, cleanup, then: { operation: 'activate-revision', args: activateSetUp(p1, setup) } };
    }
    default:
      return assertNever(operation, 'mutating operation');
  }
}

export const helperStep = (link: HostLink, step: MutatingArgs): Step => ({ helper: encodeArgument(envelopeFor(link, step.operation, step.args as never)) });

let logCounter = 0;
/** Every operation here ends within seconds; a traced call still running after this is stuck. */
const TRACED_TIMEOUT_MS = 30_000;

/** Runs one operation through a fresh client with the helper under strace; returns the outcome and the parsed log. */
export async function traced(link: HostLink, step: MutatingArgs, lane: Lane, inject?: { point: Point; injection: Injection }): Promise<{ outcome: CallOutcome; log: ParsedLog }> {
  const logPath = `/tmp/occ-chaos-strace-${process.pid}-${++logCounter}.log`;
  const outcome = await call(link, step.operation, step.args as never, { wrap: straceArgv(lane, logPath, inject), timeoutMs: TRACED_TIMEOUT_MS });
  // An error injected into a socket or eventfd write (the number drifted) can leave the helper
  // waiting forever: end that strace and its tracee, found by this call's own log path.
  const reap = 'for p in $(pgrep -f -- "-o $1 "); do pkill -KILL -P "$p"; kill -KILL "$p"; done 2>/dev/null; cat "$1"; rm -f "$1"';
  const text = await link.run(['sh', '-c', reap, 'sh', logPath]);
  return { outcome, log: parseLog(text) };
}

/**
 * Removes a scenario's Namespace, account and unit by hand, for when the helper itself refuses to
 * delete what a crash left (that refusal is already recorded as a non-converged trial).
 */
function scrubStep(cleanup: MutatingArgs): Step {
  const { namespace } = cleanup.args as { namespace: { id: string } };
  const agentId = namespace.id.replace(/^ns-/, 'agent-');
  // The scenario's Agent and the sibling the delete-agent scenario adds, as unit/account pairs.
  const pairs = [agentId, siblingAgentId(agentId)].flatMap((id) => [unitName(id), accountName(RUNTIME_USER, namespace.id, id)]);
  const script =
    'root=$1 ns=$2 dir=$3; shift 3; while [ $# -gt 0 ]; do systemctl disable --now "$1" 2>/dev/null; rm -f "$dir/$1"; userdel "$2" 2>/dev/null; groupdel "$2" 2>/dev/null; rm -f "$root/accounts/$2.json"; shift 2; done; systemctl daemon-reload; rm -rf "$root/namespaces/$ns"; true';
  return { sh: remoteCommand(['sh', '-c', script, 'scrub', ROOT, nsHash(namespace.id), UNIT_DIR, ...pairs]) };
}

/** Clears what came before and sets up the scenario, in one round trip; returns the listing to compare against. */
export async function setUp(link: HostLink, pending: MutatingArgs | undefined, setup: MutatingArgs[]): Promise<Listing> {
  if (pending) {
    const [cleared] = await runSteps(link, [helperStep(link, pending)]);
    if (!helperOf(cleared).line?.ok) await runSteps(link, [scrubStep(pending)]);
  }
  const steps = setup;
  const results = await runSteps(link, [...steps.map((step) => helperStep(link, step)), { collect: {} }]);
  for (const [index, step] of steps.entries()) {
    const line = helperOf(results[index]).line;
    if (!line?.ok) throw new Error(`crash points: setup ${step.operation} failed: ${line && !line.ok ? `${line.error.code}: ${line.error.message}` : 'no result line'}`);
  }
  return listingOf(results[results.length - 1]);
}
