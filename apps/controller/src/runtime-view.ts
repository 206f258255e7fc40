// OCC's runtime view of an SSH Agent, mapped from the helper's describe-runtime and read-logs answers:
// one pod (the Agent's gateway unit) while it runs the bound revision, its process as the one
// container, systemd's own messages as events, and the pod's journal lines. Pure: the driver sends.
import { constants } from 'node:os';
import { unitName } from '@occ-ssh/markers';
import { ComputeError, MAX_LOG_BYTES, MAX_LOG_LINES, keepNewestWithin, type OperationArgs, type OperationResult, type RuntimeEvent } from '@occ-ssh/protocol';
import type { AgentRuntimeContainerStatus, AgentRuntimeDescribeOptions, AgentRuntimeDescription, AgentRuntimeLogChunk, AgentRuntimeLogRequest, AgentRuntimePodStatus } from './runtime-types.js';

/** The one container of an SSH pod, and the one log source. */
const GATEWAY = 'gateway';

type Described = OperationResult<'describe-runtime'>;
type RunningPod = NonNullable<Described['pod']>;
type Exit = NonNullable<RunningPod['lastExit']>;

/** describe-runtime's answer in OCC's shape, as of `now`. */
export function toDescription(revisionId: string, described: Described, options: AgentRuntimeDescribeOptions | undefined, now: Date): AgentRuntimeDescription {
  const pod = described.pod ? toPod(described.unit, described.pod, options?.events !== false) : null;
  const retention = retentionText(described.retention);
  const source = pod
    ? { id: GATEWAY, kind: 'container', pods: [{ name: pod.name, uid: pod.uid, container: GATEWAY, restartCount: pod.containers[0]!.restartCount }], available: true, retention }
    : { id: GATEWAY, kind: 'container', pods: [], available: false, unavailableCode: 'NO_POD', retention };
  return { revisionId, observedAt: now.toISOString(), pods: pod ? [pod] : [], sources: [source as AgentRuntimeDescription['sources'][number]] };
}

function toPod(unit: string, pod: RunningPod, withEvents: boolean): AgentRuntimePodStatus {
  const container: AgentRuntimeContainerStatus = {
    name: GATEWAY,
    state: containerState(pod.activeState, pod.subState),
    reason: pod.activeState === 'active' && pod.subState === 'running' ? null : `${pod.subState || pod.activeState}${pod.result && pod.result !== 'success' ? `: ${pod.result}` : ''}`,
    ready: pod.ready,
    restartCount: pod.restarts,
    startedAt: pod.startedAt,
    lastTermination: pod.lastExit ? termination(pod.lastExit) : null,
  };
  return {
    role: GATEWAY,
    cluster: 'execution',
    name: unit,
    uid: pod.uid,
    phase: PHASES[pod.activeState] ?? 'Unknown',
    ready: pod.ready,
    createdAt: pod.servedAt,
    containers: [container],
    events: withEvents ? toEvents(pod.events) : [],
  };
}

/** systemd's ActiveState as a pod phase: a unit waiting to restart is Pending, a failed one Failed. */
const PHASES: Record<string, string> = { active: 'Running', reloading: 'Running', deactivating: 'Running', activating: 'Pending', failed: 'Failed' };

function containerState(active: string, sub: string): AgentRuntimeContainerStatus['state'] {
  if (active === 'active' || active === 'reloading' || active === 'deactivating') return sub === 'running' || active !== 'active' ? 'running' : 'unknown';
  if (active === 'activating') return 'waiting';
  if (active === 'failed') return 'terminated';
  return 'unknown';
}

const signalName = (number: number) => Object.entries(constants.signals).find(([, value]) => value === number)?.[0] ?? `signal ${number}`;

/** A process that exited gives its status; one killed by signal N gives 128 + N, as a shell reports it. */
function termination(exit: Exit): NonNullable<AgentRuntimeContainerStatus['lastTermination']> {
  if (exit.code === 'exited') return { reason: `exit status ${exit.status}`, exitCode: exit.status, finishedAt: exit.at };
  const how = exit.code === 'dumped' ? 'dumped core on' : 'killed by';
  return { reason: `${how} signal ${exit.status} (${signalName(exit.status)})`, exitCode: 128 + exit.status, finishedAt: exit.at };
}

/** Each event rebuilt from systemd's fields (never its or the gateway's text); repeats in a row are counted once. */
function toEvents(events: readonly RuntimeEvent[]): AgentRuntimePodStatus['events'] {
  const out: { type: 'Normal' | 'Warning'; container: string; reason: string; message: string; count: number; lastObservedAt: string }[] = [];
  for (const event of events) {
    const { type, reason, message } = describeEvent(event);
    const last = out.at(-1);
    if (last && last.type === type && last.reason === reason && last.message === message) {
      last.count += 1;
      last.lastObservedAt = event.time;
    } else out.push({ type, container: GATEWAY, reason, message, count: 1, lastObservedAt: event.time });
  }
  return out;
}

function describeEvent(event: RuntimeEvent): { type: 'Normal' | 'Warning'; reason: string; message: string } {
  switch (event.kind) {
    case 'started':
      return { type: 'Normal', reason: 'Started', message: 'systemd started the gateway process' };
    case 'stopped':
      return { type: 'Normal', reason: 'Stopped', message: 'systemd stopped the gateway process' };
    case 'exited': {
      if (event.code === 'exited') return { type: event.status === 0 ? 'Normal' : 'Warning', reason: 'Exited', message: `main process exited with status ${event.status ?? 'unknown'}` };
      const signal = event.status === null ? 'an unknown signal' : `signal ${event.status} (${signalName(event.status)})`;
      return { type: 'Warning', reason: event.code === 'dumped' ? 'CoreDumped' : 'Killed', message: `main process ${event.code === 'dumped' ? 'dumped core on' : 'killed by'} ${signal}` };
    }
    case 'failed':
      if (event.code === 'start-limit-hit') return { type: 'Warning', reason: 'StartLimitHit', message: 'systemd stopped restarting the gateway: it restarted too often (start limit hit)' };
      if (event.code === 'oom-kill') return { type: 'Warning', reason: 'OOMKilled', message: 'unit failed: a process was killed for lack of memory' };
      return { type: 'Warning', reason: 'Failed', message: `unit failed with result ${event.code ?? 'unknown'}` };
    case 'restart-scheduled':
      return { type: 'Warning', reason: 'BackOff', message: `systemd scheduled an automatic restart (restart counter ${event.status ?? 'unknown'})` };
    case 'oom-killed':
      return { type: 'Warning', reason: 'OOMKilled', message: 'the kernel killed a process of the gateway for lack of memory' };
  }
}

/** OCC's `retention`: the journal namespace and what its journald configuration bounds. */
export function retentionText(retention: Described['retention']): string {
  const settings = Object.entries(retention.settings).map(([key, value]) => `${key}=${value}`);
  if (settings.length === 0) return `journald namespace ${retention.namespace}: journald defaults (on disk up to 10% of its file system, at most 4G; in memory unless /var/log/journal exists)`;
  return `journald namespace ${retention.namespace}: ${settings.join(', ')}`;
}

const POD_UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Refuses, before any host is contacted, a request for a source, container or pod the revision's
 * description can never list, and bounds that are not positive integers. `tailLines` and
 * `limitBytes` above the helper's page bounds are lowered to them. Returns read-logs' arguments.
 */
export function admitLogRequest(agentId: string, request: AgentRuntimeLogRequest): Omit<OperationArgs<'read-logs'>, 'owner' | 'revision'> {
  const refuse = (message: string) => new ComputeError('admission', `readAgentRuntimeLogs: ${message}`);
  if (request.source !== GATEWAY) throw refuse(`source ${JSON.stringify(request.source)} is not listed for SSH Agents (only ${GATEWAY})`);
  if (request.container !== GATEWAY) throw refuse(`container ${JSON.stringify(request.container)} is not listed for SSH Agents (only ${GATEWAY})`);
  if (request.pod !== unitName(agentId)) throw refuse(`pod ${JSON.stringify(request.pod)} is not Agent ${agentId}'s gateway unit`);
  if (typeof request.podUid !== 'string' || !POD_UID.test(request.podUid)) throw refuse('podUid is not a pod ID describeAgentRuntime lists');
  if (typeof request.previous !== 'boolean') throw refuse('previous must be true or false');
  const positive = (name: string, value: unknown) => {
    if (!Number.isSafeInteger(value) || (value as number) < 1) throw refuse(`${name} must be a positive integer`);
    return value as number;
  };
  const tailLines = Math.min(positive('tailLines', request.tailLines), MAX_LOG_LINES);
  const limitBytes = Math.min(positive('limitBytes', request.limitBytes), MAX_LOG_BYTES);
  const sinceSeconds = request.sinceSeconds === undefined ? undefined : Math.min(positive('sinceSeconds', request.sinceSeconds), 2 ** 40);
  return {
    lines: tailLines,
    instance: request.previous ? 'previous' : 'current',
    podUid: request.podUid,
    limitBytes,
    ...(sinceSeconds === undefined ? {} : { withinSeconds: sinceSeconds }),
  };
}

/**
 * read-logs' page in OCC's shape. Raw means the gateway's bytes decoded as UTF-8 with replacement
 * (the helper decodes them so); the byte bound is applied again here, so `limitBytes` holds whatever the host sent.
 */
export function toLogChunk(request: AgentRuntimeLogRequest, page: OperationResult<'read-logs'>, limitBytes: number, now: Date): AgentRuntimeLogChunk {
  const newestFirst = page.entries.map((entry) => ({ time: entry.time, raw: entry.message ?? '' })).reverse();
  const bounded = keepNewestWithin(
    newestFirst,
    limitBytes,
    (line) => line.raw,
    (line, raw) => ({ ...line, raw }),
  );
  return {
    stream: { source: GATEWAY, pod: request.pod, podUid: request.podUid, container: GATEWAY },
    observedAt: now.toISOString(),
    lines: bounded.lines,
    truncated: page.truncated || bounded.truncated,
  };
}
