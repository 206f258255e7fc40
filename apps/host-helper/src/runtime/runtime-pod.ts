// OCC's runtime view of one revision: whether the Agent's gateway unit runs it (a "pod"), systemd's
// record of its processes, and the unit's state changes as systemd itself logged them. Read-only and
// lock-free: every read is bounded by the caller's deadline, so a gateway cannot make it slow.
import { createHash } from 'node:crypto';
import type { AgentLayout } from '@occ-ssh/markers';
import { MAX_RUNTIME_EVENTS, type AgentOwner, type RevisionIdentity, type RuntimeEvent } from '@occ-ssh/protocol';
import { systemctlArgv } from '../run/commands.js';
import { verifyAccount } from '../accounts/accounts.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context/context.js';
import { intOrNull, isoMicros, journalRecords } from '../systemd/journal.js';
import { readCurrent, readRevision, readServed, requireAgent, verifyNamespace, verifyUnitFile } from '../fs/ownership.js';
import { ownershipError } from '../fs/safe-read.js';
import { SYSTEMD_ENV } from '../run/system.js';

/** systemd's message IDs (sd-messages.h) of the unit state changes the view reports. */
const MESSAGES = {
  '39f53479d3a045ac8e11786248231fbf': 'started',
  '98e322203f7a4ed290d09fe03c09fe15': 'exited',
  d9b373ed55a64feb8242e02dbe79a49c: 'failed',
  '5eb03494b6584870a536b337290809b3': 'restart-scheduled',
  '9d1aaa27d60140bd96365438aad20286': 'stopped',
  fe6faa94e7774663a0da52717891d8ef: 'oom-killed',
} as const satisfies Record<string, RuntimeEvent['kind']>;

/** How many of systemd's messages about the unit are read to find the events and invocations. */
const UNIT_MESSAGE_LINES = 200;
/** How long before served.json's time the activation's restart may have begun (the readiness bound and some). */
const SERVED_LAG_S = 150;
const SHOW_PROPERTIES = ['LoadState', 'ActiveState', 'SubState', 'Result', 'NRestarts', 'InvocationID', 'ExecMainStartTimestamp', 'ExecMainExitTimestamp', 'ExecMainCode', 'ExecMainStatus'];

export interface PodFacts {
  layout: AgentLayout;
  uid: number;
  /** The gateway's loopback port, from the Agent marker. */
  agentPort: number;
  /** Present only while the unit runs the revision. */
  pod: RunningUnit | null;
  absent: 'not-current' | 'no-unit' | 'inactive' | null;
}

interface RunningUnit {
  podUid: string;
  /** When the activation that restarted the unit for this revision found it ready (served.json); null when none did. */
  servedAt: string | null;
  show: (name: string) => string;
}

/**
 * Verifies the Agent as read-logs does (markers, live account, unit file header), then reads whether
 * `current` selects the revision and systemd runs the unit. Security: the unit and UID come from the
 * verified markers, never from the request.
 */
export async function podOf(ctx: OpContext, owner: AgentOwner, revision: RevisionIdentity, deadline: number): Promise<PodFacts> {
  verifyNamespace(namespacePaths(ctx, owner.namespace.id).marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const agent = requireAgent(layout, owner);
  const live = await verifyAccount(ctx, owner);
  if (agent.uid !== live.uid) throw ownershipError(layout.marker, 'Agent marker records a different UID than the live account');
  const paths = revisionPaths(layout, revision);
  const marker = readRevision(paths, owner, revision);
  const base = { layout, uid: live.uid, agentPort: agent.port };
  if (!marker || readCurrent(layout) !== paths.currentTarget) return { ...base, pod: null, absent: 'not-current' };
  if (verifyUnitFile(layout, owner) === null) return { ...base, pod: null, absent: 'no-unit' };
  const show = await showUnit(ctx, layout.unitName, deadline);
  if (show('LoadState') !== 'loaded') return { ...base, pod: null, absent: 'no-unit' };
  if (['inactive', ''].includes(show('ActiveState'))) return { ...base, pod: null, absent: 'inactive' };
  const served = readServed(layout, owner);
  const servedAt = served?.revisionId === revision.id ? served.servedAt : null;
  return { ...base, pod: { podUid: podUid(servedAt, revision.id), servedAt, show }, absent: null };
}

/**
 * The pod's ID: a digest of the revision and the time the activation that restarted the unit for it
 * was recorded as served, shaped as a UUID. systemd's automatic restarts leave it alone; every
 * activation that restarts the unit (of this revision or another) records a new time and so a new ID.
 * An activation that never became ready records none: its pod has the revision's `unserved` ID.
 */
export function podUid(servedAt: string | null, revisionId: string): string {
  const hex = createHash('sha256')
    .update(`occ-ssh-pod\0${revisionId}\0${servedAt ?? 'unserved'}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

async function showUnit(ctx: OpContext, unit: string, deadline: number): Promise<(name: string) => string> {
  const result = await ctx.runner.run(systemctlArgv({ verb: 'show', unit, properties: SHOW_PROPERTIES }), {
    timeoutMs: Math.max(1, deadline - Date.now()),
    // Timestamps in UTC whatever the host's zone, so they parse to one instant.
    env: { ...SYSTEMD_ENV, TZ: 'UTC' },
  });
  return (name) => new RegExp(`^${name}=(.*)$`, 'm').exec(result.stdout)?.[1]?.trim() ?? '';
}

/** systemd's `Fri 2026-12-04 00:30:40 UTC` as ISO 8601; null when empty or in another form. */
export function systemdTime(text: string): string | null {
  const match = /^[A-Z][a-z]{2} (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC$/.exec(text);
  return match ? `${match[1]}T${match[2]}.000Z` : null;
}

/** ExecMain* of the unit: how its last main process ended, while systemd has not started another. */
export function mainExit(show: (name: string) => string) {
  const code = ({ 1: 'exited', 2: 'killed', 3: 'dumped' } as const)[Number(show('ExecMainCode')) as 1 | 2 | 3];
  const status = Number(show('ExecMainStatus'));
  const at = systemdTime(show('ExecMainExitTimestamp'));
  if (!code || at === null || !Number.isInteger(status) || status < 0 || status > 255) return null;
  return { code, status, at };
}

/** One of systemd's messages about the unit, with the invocation it concerns. */
export interface UnitMessage extends RuntimeEvent {
  invocation: string | null;
}

/**
 * systemd's own messages about the unit since `since` (ISO), oldest first, from the system journal.
 * Security: selected by _PID=1 and _UID=0, which journald stamps from the sender's credentials, with
 * systemd's UNIT= and MESSAGE_ID= fields; the gateway writes into its own journal namespace and cannot
 * send as PID 1, and nothing of MESSAGE is returned: each event is rebuilt from systemd's fields.
 */
export async function unitMessages(ctx: OpContext, unit: string, since: string | null, deadline: number): Promise<UnitMessage[]> {
  // The activation's restart precedes served.json by up to the readiness bound.
  const from = since === null ? null : Math.max(0, Math.floor(Date.parse(since) / 1000) - SERVED_LAG_S);
  const args = [
    '--no-pager',
    '--quiet',
    '--output=json',
    '--output-fields=MESSAGE_ID,INVOCATION_ID,EXIT_CODE,EXIT_STATUS,UNIT_RESULT,N_RESTARTS',
    `--lines=${UNIT_MESSAGE_LINES}`,
    ...(from === null || Number.isNaN(from) ? [] : [`--since=@${from}`]),
    '_PID=1',
    '_UID=0',
    `UNIT=${unit}`,
    ...Object.keys(MESSAGES).map((id) => `MESSAGE_ID=${id}`),
  ];
  const { records } = await journalRecords(ctx.runner, args, ctx.session.signal, Math.max(1, deadline - Date.now()));
  const messages: UnitMessage[] = [];
  for (const record of records) {
    const kind = MESSAGES[String(record.MESSAGE_ID) as keyof typeof MESSAGES];
    if (!kind) continue;
    const invocation = typeof record.INVOCATION_ID === 'string' && /^[0-9a-f]{32}$/.test(record.INVOCATION_ID) ? record.INVOCATION_ID : null;
    messages.push({ time: isoMicros(record.__REALTIME_TIMESTAMP), kind, ...eventDetail(kind, record), invocation });
  }
  return messages;
}

/**
 * The current pod's part of the messages: from the start that began it (an activation's restart, not
 * one of systemd's automatic restarts) on. A start is automatic when systemd scheduled a restart since
 * the start before it. `previous` is the invocation before the current one within the pod, if any.
 */
export function podHistory(messages: readonly UnitMessage[], current: string): { events: RuntimeEvent[]; previous: string | null } {
  const startAt = (before: number) => messages.findLastIndex((m, i) => i < before && m.kind === 'started');
  let first = messages.findLastIndex((m) => m.kind === 'started' && m.invocation === current);
  if (first < 0) return { events: messages.slice(-MAX_RUNTIME_EVENTS).map(asEvent), previous: null };
  const latest = first;
  let previous: string | null = null;
  for (let before = startAt(first); before >= 0; before = startAt(first)) {
    const automatic = messages.slice(before + 1, first).some((m) => m.kind === 'restart-scheduled');
    if (!automatic) break;
    if (first === latest) previous = messages[before]!.invocation;
    first = before;
  }
  return { events: messages.slice(first).slice(-MAX_RUNTIME_EVENTS).map(asEvent), previous };
}

const asEvent = ({ time, kind, code, status }: UnitMessage): RuntimeEvent => ({ time, kind, code, status });

function eventDetail(kind: RuntimeEvent['kind'], record: Record<string, unknown>): { code: string | null; status: number | null } {
  const word = (value: unknown) => (typeof value === 'string' && /^[a-z-]{1,32}$/.test(value) ? value : null);
  if (kind === 'exited') return { code: word(record.EXIT_CODE), status: intOrNull(record.EXIT_STATUS) };
  if (kind === 'failed') return { code: word(record.UNIT_RESULT), status: null };
  if (kind === 'restart-scheduled') return { code: null, status: intOrNull(record.N_RESTARTS) };
  return { code: null, status: null };
}
