// OCC's runtime view types (describeAgentRuntime, readAgentRuntimeLogs), written out as OCC's
// contract declares them; docs/integration.md says what each field means for a systemd unit.

/** The log sources OCC knows; an SSH Agent has only `gateway`. */
export type RuntimeLogContainerSourceId = 'gateway' | 'agent';

/** Which stream a page of lines came from. */
export interface RuntimeLogStream {
  /** Always `gateway` for SSH Agents. */
  readonly source: RuntimeLogContainerSourceId | 'sandbox';
  /** The gateway's systemd unit name. */
  readonly pod?: string;
  /** The pod ID describeAgentRuntime listed. */
  readonly podUid?: string;
  /** Always `gateway`. */
  readonly container?: string;
  /** systemd's NRestarts when the page was read. */
  readonly restartCount?: number;
  /** Never set by SSH Compute (no Sandbox). */
  readonly sandbox?: string;
}

/** The gateway process of a pod, as systemd records it. */
export interface AgentRuntimeContainerStatus {
  /** Always `gateway`. */
  readonly name: string;
  /** `running` (active/running), `waiting` (activating: starting or waiting to restart), `terminated` (failed), else `unknown`. */
  readonly state: 'waiting' | 'running' | 'terminated' | 'unknown';
  /** Null while running; otherwise systemd's SubState, and its Result when that is not `success`, such as `auto-restart` or `failed: start-limit-hit`. */
  readonly reason: string | null;
  /** The Agent's own listener (its UID, inside the unit's processes) answers /readyz with 200. */
  readonly ready: boolean;
  /** systemd's NRestarts: automatic restarts since the activation's own start. */
  readonly restartCount: number;
  /** ExecMainStartTimestamp (ISO 8601); null before the first start. */
  readonly startedAt: string | null;
  /** The last main process of the pod that ended: `exit status N` or `killed by signal N (NAME)`, its exit status (128 + N for a signal), and when. */
  readonly lastTermination: { readonly reason: string | null; readonly exitCode: number | null; readonly finishedAt: string | null } | null;
}

/** The Agent's gateway unit while it runs the described revision. */
export interface AgentRuntimePodStatus {
  /** Always `gateway`. */
  readonly role: RuntimeLogContainerSourceId;
  /** Always `execution`: the Agent's host. */
  readonly cluster: 'control' | 'execution';
  /** The unit name, such as `openclaw-enterprise-gateway-0123456789ab.service`. */
  readonly name: string;
  /** Stable across systemd's automatic restarts, new with every activation that restarts the unit. */
  readonly uid: string;
  /** `Running`, `Pending` (starting or waiting to restart), `Failed` or `Unknown`. */
  readonly phase: string;
  /** The gateway container's `ready`. */
  readonly ready: boolean;
  /** When the activation that started the pod found it ready (served.json); null when none did. */
  readonly createdAt: string | null;
  /** One: the gateway process. */
  readonly containers: readonly AgentRuntimeContainerStatus[];
  /** systemd's own messages about the unit since the activation, at most eight, newest last. */
  readonly events: readonly {
    readonly type: 'Normal' | 'Warning';
    readonly container: string | null;
    readonly reason: string;
    readonly message: string;
    readonly count: number;
    readonly lastObservedAt: string | null;
  }[];
}

/** What describeAgentRuntime returns for one revision. */
export interface AgentRuntimeDescription {
  /** The bound revision's ID. */
  readonly revisionId: string;
  /** When the host was read (ISO 8601). */
  readonly observedAt: string;
  /** One pod when the Agent's unit runs the revision, else none. */
  readonly pods: readonly AgentRuntimePodStatus[];
  /** The `gateway` source; `available: false` with `NO_POD` when the unit does not run the revision. */
  readonly sources: readonly {
    readonly id: RuntimeLogContainerSourceId | 'sandbox';
    readonly kind: 'container' | 'sandbox';
    readonly pods: readonly { readonly name: string; readonly uid: string; readonly container: string; readonly restartCount: number }[];
    readonly available: boolean;
    readonly unavailableCode?: 'NO_POD';
    /** What the gateways' journal namespace keeps. */
    readonly retention: string;
  }[];
}

/** describeAgentRuntime's options: `events: false` leaves the events out. */
export interface AgentRuntimeDescribeOptions {
  /** Ignored: SSH Agents have only the `gateway` source. */
  readonly source?: RuntimeLogContainerSourceId;
  /** `false` leaves `events` empty. */
  readonly events?: boolean;
}

/** One page of a listed pod's lines: the newest `tailLines`, within `limitBytes`. */
export interface AgentRuntimeLogRequest {
  /** Must be `gateway`. */
  readonly source: RuntimeLogContainerSourceId;
  /** A pod name describeAgentRuntime listed: the Agent's unit name. */
  readonly pod: string;
  /** The pod ID describeAgentRuntime listed; refused once another activation replaced the pod. */
  readonly podUid: string;
  /** Must be `gateway`. */
  readonly container: string;
  /** The gateway process before the current one in the same pod. */
  readonly previous: boolean;
  /** The newest lines, at most (lowered to 1000). */
  readonly tailLines: number;
  /** Only lines of the last this many seconds, by the host's clock. */
  readonly sinceSeconds?: number;
  /** The UTF-8 bytes of all lines together, at most (lowered to 256 KiB); exact. */
  readonly limitBytes: number;
  /** Ends the read (the helper call) early. */
  readonly signal: AbortSignal;
}

/** The gateway's own lines, raw (OCC redacts and bounds them again), oldest first. */
export interface AgentRuntimeLogChunk {
  /** The pod and container read. */
  readonly stream: RuntimeLogStream;
  /** When the host was read (ISO 8601). */
  readonly observedAt: string;
  /** journald's receive time (ISO 8601, microseconds) and the line's bytes decoded as UTF-8 with replacement. */
  readonly lines: readonly { readonly time: string | null; readonly raw: string }[];
  /** Lines were left out, or the newest cut, to stay within `limitBytes`. */
  readonly truncated: boolean;
}
