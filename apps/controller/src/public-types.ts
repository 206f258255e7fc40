// What the driver's operator methods (status, logs, plan, stop, delete) take and return, written out
// for integrators instead of inferred from the wire schemas, whose zod values are no part of the API.
// The checks at the end fail typecheck when a type here and its wire type differ in any way.
import type { HostDeploymentCheck, OperationArgs, OperationName, OperationResult, PlanResult } from '@occ-ssh/protocol';

/** A host helper operation, as the driver names it in logs, spans and progress. */
export type HelperOperation =
  | 'probe'
  | 'ensure-namespace'
  | 'prepare-revision'
  | 'setup-workspace'
  | 'activate-revision'
  | 'verify-revision'
  | 'stop-revision'
  | 'retire-revision'
  | 'delete-agent'
  | 'delete-namespace'
  | 'inventory'
  | 'read-logs'
  | 'describe-runtime'
  | 'diagnose-deployment'
  | 'plan-operation';

/** One helper heartbeat, told to `onHelperProgress`: the helper is alive and working on `operation`. */
export interface HelperProgress {
  /** The machine that runs the operation, `address:port` (as `occ_ssh.host` on spans and metrics). */
  host: string;
  /** The Namespace name: the `hosts` key that selected the machine. */
  namespaceName: string;
  /** The helper operation in progress. */
  operation: HelperOperation;
  /** Heartbeats seen so far in this invocation. */
  heartbeats: number;
  /** Milliseconds since the driver started this invocation. */
  elapsedMs: number;
}

/** What `stopRevisionReport` found on the host. */
export interface StopReport {
  /** The gateway's unit file existed (it is stopped and disabled now). */
  unitFound: boolean;
  /** This revision was the Agent's current one and no longer is; false when it was not running. */
  currentRemoved: boolean;
}

/** What `deleteAgent` removed from the host; all false and `portFreed` null when the Agent was already gone. */
export interface AgentDeletionReport {
  /** The Agent's directory (or a twin an earlier, cut deletion renamed away) was there. */
  agentExisted: boolean;
  /** The Agent's Linux account was removed. */
  accountRemoved: boolean;
  /** The gateway's systemd unit was removed. */
  unitRemoved: boolean;
  /** The gateway port the Agent held, now free for another Agent; null when no marker was left. */
  portFreed: number | null;
}

/** One revision snapshot kept on the host for an Agent. */
export interface InventoryRevision {
  /** OCC's revision ID. */
  revisionId: string;
  /** The revision number (1, 2, and so on for the Agent). */
  number: number;
  /** The gateway authentication mode its configuration selects, such as `password` or `token`. */
  auth: string;
}

/** One Agent on the host, as its markers, systemd and its gateway's readiness answer describe it. */
export interface InventoryAgent {
  /** OCC's Agent ID. */
  agentId: string;
  /** OCC's ServicePrincipal ID the Agent acts as. */
  servicePrincipalId: string;
  /** The Linux account the gateway runs as. */
  account: string;
  /** The account's user ID. */
  uid: number;
  /** The account's group ID. */
  gid: number;
  /** The gateway's loopback TCP port. */
  port: number;
  /** The gateway's systemd unit name. */
  unit: string;
  /** systemd's ActiveState of the unit, `not-found` when no unit file exists, `unknown` when it could not be read in time. */
  unitState: string;
  /** The unit is enabled. */
  enabled: boolean;
  /** The revision the Agent's `current` link selects; null when none does. */
  currentRevisionId: string | null;
  /** The revision the last activation recorded as served; null before the first. */
  servedRevisionId: string | null;
  /** When that revision was served, ISO 8601 UTC; null before the first activation. */
  servedAt: string | null;
  /** The unit is active and its own process answers the gateway's readiness probe. */
  ready: boolean;
  /** systemd's MemoryCurrent of the unit in bytes; null without memory accounting or a unit, and while it is stopped (inactive). */
  memoryBytes: number | null;
  /** systemd's NRestarts: automatic restarts since the unit was last started by hand or by the driver; null without a unit, and while it is stopped (inactive: not read). */
  restarts: number | null;
  /** The revision snapshots on the host, by number. */
  revisions: InventoryRevision[];
  /** The OCC workspace setup recorded as delivered; absent when none was. */
  workspaceSetupId?: string;
}

/** One Namespace on the host and its Agents. */
export interface InventoryNamespace {
  /** OCC's Namespace ID. */
  namespaceId: string;
  /** OCC's Namespace name. */
  namespaceName: string;
  /** The Agents the Namespace has on the host. */
  agents: InventoryAgent[];
}

/** Something the inventory could not read or verify. */
export interface InventoryProblem {
  /** The host path (or `journal`) concerned. */
  path: string;
  /** What was wrong, without file contents. */
  message: string;
}

/** What `inventory` read on one host, read-only: every Namespace and Agent under its root, whichever Namespace named the host. */
export interface HostInventory {
  /** Every Namespace under the host's root. */
  namespaces: InventoryNamespace[];
  /** Anything that could not be read or did not verify; reported instead of failing. */
  problems: InventoryProblem[];
  /** The newest audit lines of mutating operations on the host, oldest first. */
  recentAudit: string[];
}

/** Which entries of an Agent's gateway journal `readLogs` returns. */
export interface LogQuery {
  /** Only entries since this revision was served; refused unless it is the served one. */
  revision?: {
    /** OCC's revision ID. */
    id: string;
    /** The revision number. */
    number: number;
  };
  /** Only entries since this time, in seconds since the epoch (UTC). */
  sinceEpochSeconds?: number;
  /** The most entries to return, 1 to 1000: the newest ones. */
  lines: number;
  /** Only entries after this journald cursor (a `LogPage.cursor`): how a follower asks for what is new. */
  afterCursor?: string;
  /** OCC's runtime view (needs `revision`): only the current gateway process of the pod that runs the revision, or the one before it. */
  instance?: 'current' | 'previous';
  /** With `instance`: the pod ID `describeAgentRuntime` listed; refused once another activation replaced the pod. */
  podUid?: string;
  /** With `instance`: only entries of the last this many seconds, by the host's clock. */
  withinSeconds?: number;
  /** With `instance`: at most this many message bytes (UTF-8), up to 256 KiB; the newest entries are kept, a newest entry alone over it is cut. */
  limitBytes?: number;
}

/** One gateway journal entry. */
export interface LogEntry {
  /** journald's receive time, ISO 8601 UTC with microseconds. */
  time: string;
  /** The writing process ID, as journald stamped it; null when absent. */
  pid: number | null;
  /** The gateway's own text, unfiltered: treat it as hostile when showing it. Null when journald held more than it shows (over 4096 bytes). */
  message: string | null;
}

/** One page of an Agent's gateway journal. */
export interface LogPage {
  /** The gateway's systemd unit the entries were selected by. */
  unit: string;
  /** The Agent account's user ID the entries were selected by. */
  uid: number;
  /** The entries, oldest first. */
  entries: LogEntry[];
  /** The last entry's cursor, or the one asked after when nothing is new; pass it as `afterCursor` for the next page. */
  cursor: string | null;
  /** Older entries were left out to keep the page within 256 KiB of messages. */
  truncated: boolean;
}

/** How `followLogs` follows. */
export interface LogFollowOptions {
  /** How long to follow, 1 to 150 seconds (the default, and the most one follow may take). */
  seconds?: number;
  /** Ends the follow (a `cancelled` error); the driver's operation signal when not given. */
  signal?: AbortSignal;
}

/** How a `followLogs` call ended, with what selected its entries. */
export interface LogFollowEnd {
  /** The gateway's systemd unit the entries were selected by. */
  unit: string;
  /** The Agent account's user ID the entries were selected by. */
  uid: number;
  /** The last entry's cursor: pass it as `afterCursor` to go on from there. */
  cursor: string | null;
  /** Older entries of the first page were left out to keep it within 256 KiB of messages. */
  truncated: boolean;
  /** `time`: the seconds asked for passed; `bytes`: 2 MiB of entries were sent, later ones are not; `journal`: journalctl ended by itself. */
  ended: 'time' | 'bytes' | 'journal';
}

/** One step a planned operation would take. */
export interface PlannedStep {
  /** The step's kind, such as `create-account`, `write-file`, `enable-unit` or `restart-unit`. */
  op: string;
  /** What it acts on: a path, a unit or an account. */
  target: string;
  /** Owner, mode, digest, link target and the like; never a file's contents. */
  details: Record<string, string | number | boolean>;
}

/** What `planOperation` found one host operation would change, without changing anything. */
export interface OperationPlan {
  /** The steps, in order; empty when nothing would change. */
  steps: PlannedStep[];
  /** SHA-256 (hex) of the steps as listed: the real operation's audit line carries the same as `plan=`. */
  digest: string;
  /** What the operation does after these steps that cannot be planned before they run; null when nothing. */
  after: string | null;
}

/** One check of `diagnoseAgentDeployment`, in OCC's shape; docs/integration.md lists every name and code. */
export interface DeploymentCheck {
  /** What was checked, e.g. `unit`, `listener`, `env-file`: lower-case words joined by `-`. */
  readonly component: string;
  /** Which check of it, e.g. `active`, `owner`. */
  readonly check: string;
  readonly state: 'succeeded' | 'failed' | 'unknown';
  /** When it was made (ISO 8601 UTC with milliseconds, on the controller's clock); null when it was not made. */
  readonly checkedAt: string | null;
  /** Why it failed, or a distinct finding (`ENV_FILE_ABSENT`); `^[A-Z][A-Z0-9_]{0,63}$`. */
  readonly code?: string;
}

/** What `diagnoseAgentDeployment` returns: OCC's AgentDeploymentDiagnostics, at most 32 checks. */
export interface AgentDeploymentDiagnostics {
  /** The bound revision's ID, always. */
  readonly revisionId: string;
  /** When the controller received the host's answer (or gave up reaching it). */
  readonly observedAt: string;
  readonly checks: readonly DeploymentCheck[];
}

/** True only when A and B are the same type: optionality, readonly and every field's type included. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;

/** Each written-out type is its wire type; a field added, dropped or changed on either side fails typecheck here. */
type _WireChecks = [
  Holds<Same<HelperOperation, OperationName>>,
  Holds<Same<StopReport, OperationResult<'stop-revision'>>>,
  Holds<Same<AgentDeletionReport, OperationResult<'delete-agent'>>>,
  Holds<Same<HostInventory, OperationResult<'inventory'>>>,
  Holds<Same<LogQuery, Omit<OperationArgs<'read-logs'>, 'owner' | 'follow'>>>,
  Holds<Same<LogPage, Omit<OperationResult<'read-logs'>, 'followEnded'>>>,
  Holds<Same<LogFollowEnd['ended'], NonNullable<OperationResult<'read-logs'>['followEnded']>>>,
  Holds<Same<OperationPlan, PlanResult>>,
  Holds<Same<DeploymentCheck['state'], HostDeploymentCheck['state']>>,
];
