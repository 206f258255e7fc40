// The host changes an operation makes, as plain data: what a planner returns and `apply` runs, in
// order. No closures and no secrets: the gateway password is made inside `apply`, and a new
// account's UID/GID, known only once its step has run, is named by the account it belongs to.
import type { Creation } from '../accounts/accounts.js';
import type { PortRecord } from '../gateway/port-index.js';
import type { AccountMarker, AgentMarker, NamespaceMarker, RevisionMarker, ServedMarker } from '@occ-ssh/markers';
import type { Document, WorkspaceTarget } from '../workspace/documents.js';
import type { NativeSetupRun } from '../workspace/native-setup.js';

/** A number, or the UID/GID of an account created earlier in the same plan. */
export type Id = number | { uidOf: string } | { gidOf: string };

export interface PlannedOwnership {
  uid: Id;
  gid: Id;
  mode: number;
}

type PlannedAgentMarker = Omit<AgentMarker, 'uid' | 'gid'> & { uid: Id; gid: Id };
export type PlannedMarker = AccountMarker | NamespaceMarker | PlannedAgentMarker | RevisionMarker | ServedMarker;

type EnsureDir = { op: 'ensure-dir'; path: string; owner: PlannedOwnership; repairMode?: true };
type WriteMarker = { op: 'write-marker'; path: string; marker: PlannedMarker };
/** What may be written inside a directory made by `create-dir-atomic` (paths name the final place). */
export type InnerStep = EnsureDir | WriteMarker;

export type Step =
  | EnsureDir
  | WriteMarker
  | { op: 'sweep-temps'; dir: string; prefix?: string }
  | { op: 'create-dir-atomic'; path: string; owner: PlannedOwnership; inside: InnerStep[] }
  | { op: 'write-file'; path: string; content: string; owner: PlannedOwnership }
  | { op: 'create-password-file'; path: string }
  | { op: 'replace-symlink'; path: string; target: string }
  | { op: 'remove-file'; path: string }
  /** In a child rm, never by recursion in the helper (see fs/tree-removal.ts). */
  | { op: 'remove-tree'; path: string }
  /** A deleted tree renamed into the removal area, after its marker; the name there is made by `apply` (see lock/removal-area.ts). */
  | { op: 'stage-removal'; path: string; namespaceId: string; agentId?: string }
  /**
   * The last step of a deletion: claims, under the lock, the recorded removals of this Namespace (or
   * only this Agent), releases the host lock, then removes them in a child rm (see lock/removal-area.ts).
   */
  | { op: 'finish-removals'; namespaceId: string; agentId?: string }
  | { op: 'rename'; from: string; to: string }
  /** The port index for the Agent directories the plan leaves (see gateway/port-index.ts); the last change to that set. */
  | { op: 'record-ports'; ports: PortRecord }
  /** useradd (after userdel for a half-made account), then the account marker turned `active`. */
  | ({ op: 'create-account' } & Creation)
  | { op: 'remove-account'; marker: string; account: AccountMarker }
  /** By the unit file's absolute path (see systemd/systemd.ts enableUnit). */
  | { op: 'enable-unit'; path: string }
  /** With the unit directory outside the load path, relinked first and unlinked after (see systemd/unit-links.ts). */
  | { op: 'stop-and-disable'; unit: string }
  | { op: 'daemon-reload' }
  | { op: 'restart-unit'; unit: string; failed: boolean }
  /** A fresh random token, made by `apply`, which it returns. */
  | { op: 'stake-claim'; path: string }
  | { op: 'drop-claim'; path: string }
  /** OpenClaw's `setup --baseline` as the Agent, on a scratch copy of the staged configuration (see workspace/native-setup.ts). */
  | { op: 'native-setup'; run: NativeSetupRun }
  /** Stops the Agent's transient setup unit, if one runs, and waits until every process of it is gone. */
  | { op: 'stop-native-setup'; unit: string }
  /** The documents, written as the Agent, each only over nothing, stock or the submitted text (see workspace/documents.ts). */
  | { op: 'write-workspace'; target: WorkspaceTarget; documents: readonly Document[]; replaceable: Record<string, string[]> }
  /** Changes nothing: every document holds the submitted text, or the plan stops before its marker. */
  | { op: 'verify-workspace'; target: WorkspaceTarget; digests: Record<string, string> }
  /** A session check between changes that are not themselves checked (the restart's preparation). */
  | { op: 'checkpoint' };

/** The final path of an inner step's target, seen from `dir`'s temp twin. */
export function relocate(path: string, from: string, to: string): string {
  return `${to}${path.slice(from.length)}`;
}

/** A planner's answer: the changes to make, and the operation's result once they are made. */
export interface Plan<R> {
  steps: Step[];
  result: R;
}

/** The prefix of the temps an interrupted creation of `path` leaves beside it (see fs/atomic-write.ts). */
export function siblingTempPrefix(path: string): string {
  return `.${path.slice(path.lastIndexOf('/') + 1)}`;
}
