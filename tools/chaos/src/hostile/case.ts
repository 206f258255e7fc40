// One hostile case: the state it plants, the operations it attempts, and the shared steps cases are built from.
import { markerText, type AgentLayout } from '@occ-ssh/markers';
import { encodeArgument, type AgentOwner, type OperationArgs, type OperationName } from '@occ-ssh/protocol';
import { envelopeFor } from '@occ-ssh/test-support';
import { helperOf, runSteps } from '../host/collector.js';
import { activateArgs, ownerOf, prepareArgs } from '../host/fixture-args.js';
import type { HostLink } from '../host/ssh.js';

export const SQUATTER_UNIT = 'occ-chaos-squatter';

export interface HostileResult {
  name: string;
  /**
   * `refused`: every attempt must fail with ownership. `not-followed`: the operations succeed through
   * planted links. `not-served`: every attempt must fail with not-ready naming the squatter's UID.
   */
  kind: 'refused' | 'not-followed' | 'not-served';
  attempts: { operation: string; outcome: string; ok: boolean }[];
  refused: boolean;
  unchanged: boolean;
  targetsUnchanged: boolean;
  problems: string[];
  /** What the campaign saw that the promises leave open (reported, not judged). */
  observation?: string;
}

export interface Ctx {
  link: HostLink;
  owner: AgentOwner;
  layout: AgentLayout;
  account: string;
  p1: OperationArgs<'prepare-revision'>;
  p2: OperationArgs<'prepare-revision'>;
  /** Writes a root-owned 0600 file (a forged marker). */
  plant: (path: string, text: string, mode?: string) => Promise<void>;
}

export type Attempt = [OperationName, (ctx: Ctx) => unknown];

export interface HostileCase {
  name: string;
  /** Brings the Agent to the state the attack starts from, then plants the attack. */
  setup: (ctx: Ctx) => Promise<void>;
  attempts: Attempt[];
  /**
   * Paths outside the root that must not change: `full` (metadata, times and bytes) or `meta`
   * (owner, group, mode and type: for /etc, /etc/passwd and /etc/shadow, which userdel legitimately rewrites).
   */
  watch?: [string, 'full' | 'meta'][];
  kind?: HostileResult['kind'];
  /** In the quick campaign's subset: at least one case of every kind of hostile state. */
  core?: boolean;
  /** A further check after the attempts, for an operation whose refusal comes after some of its own effects. */
  after?: (ctx: Ctx) => Promise<{ problems: string[]; observation?: string }>;
}

export const prepare1: Attempt = ['prepare-revision', (ctx) => ctx.p1];
export const prepare2: Attempt = ['prepare-revision', (ctx) => ctx.p2];
export const activate1: Attempt = ['activate-revision', (ctx) => activateArgs(ctx.p1)];
export const ensureNs: Attempt = ['ensure-namespace', (ctx) => ({ namespace: ctx.owner.namespace })];
export const deleteNs: Attempt = ['delete-namespace', (ctx) => ({ namespace: ctx.owner.namespace })];
export const stop1: Attempt = ['stop-revision', (ctx) => ({ owner: ctx.owner, revision: ctx.p1.revision })];
export const retire1: Attempt = ['retire-revision', (ctx) => ({ owner: ctx.owner, revision: ctx.p1.revision })];
/** A new Agent in the same Namespace: its prepare is the one that scans every marker for a free port. */
export const newcomer = (ctx: Ctx): AgentOwner => ({ ...ownerOf(`${ctx.owner.agent.id.slice('agent-'.length)}-new`), namespace: ctx.owner.namespace });
export const prepareNewcomer: Attempt = ['prepare-revision', (ctx) => prepareArgs(newcomer(ctx), 1)];

/** The Agent staged (and optionally serving) the ordinary way, in one round trip. */
export async function staged(ctx: Ctx, activate = false): Promise<void> {
  const ops: [OperationName, unknown][] = [
    ['ensure-namespace', { namespace: ctx.owner.namespace }],
    ['prepare-revision', ctx.p1],
    ...(activate ? [['activate-revision', activateArgs(ctx.p1)] as [OperationName, unknown]] : []),
  ];
  const steps = await runSteps(
    ctx.link,
    ops.map(([operation, args]) => ({ helper: encodeArgument(envelopeFor(ctx.link, operation, args as never)) })),
  );
  for (const [index, [operation]] of ops.entries()) {
    const line = helperOf(steps[index]).line;
    if (!line?.ok) throw new Error(`${operation}: ${line && !line.ok ? `${line.error.code}: ${line.error.message}` : 'no result line'}`);
  }
}

export const foreign = (ctx: Ctx) => ownerOf(`${ctx.owner.agent.id.slice('agent-'.length)}-x`, `${ctx.owner.agent.id.slice('agent-'.length)}-x`, ctx.owner.namespace.name);

export function agentMarkerOf(ctx: Ctx, changes: Record<string, unknown>): string {
  return markerText({
    kind: 'agent',
    version: 1,
    driver: 'compute-ssh',
    namespaceId: ctx.owner.namespace.id,
    agentId: ctx.owner.agent.id,
    servicePrincipalId: ctx.owner.servicePrincipal.id,
    account: ctx.account,
    uid: 4001,
    gid: 4001,
    port: 18899,
    ...changes,
  } as never);
}
