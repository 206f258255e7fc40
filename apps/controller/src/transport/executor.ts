// The seam between the driver and a transport: run one helper invocation on one host.
import type { TransportCause } from './failure-cause.js';

/** A configured host, resolved for one Namespace. */
export interface HostTarget {
  /** The Namespace name that selects this host in the Installation. */
  name: string;
  address: string;
  port: number;
  user: 'root';
}

/**
 * What a transport runs on a host: the remote argv and the bytes written to its stdin (then
 * closed). A HelperCall is one; transport tests pass their own stand-in programs.
 */
export interface RemoteCall {
  /** Rendered into the one remote shell string by remoteCommand(). */
  readonly argv: readonly string[];
  readonly stdin: Buffer;
}

export interface ExecuteRequest {
  host: HostTarget;
  call: RemoteCall;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Each chunk of the remote command's stdout as it arrives: the helper's heartbeats, for progress. */
  onStdout?: (chunk: Buffer) => void;
}

export interface ExecuteResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** Only the size: stderr may echo host details and never reaches errors or logs. */
  stderrBytes: number;
  stdoutTruncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  /** The transport itself failed (connection, authentication, host key): no helper ran. */
  transportFailed: boolean;
  /** Why, when the transport failed: from the client's own diagnostics, never its text. */
  transportCause?: TransportCause;
}

/** A call that ended before any output: the fields a transport sets are given, the rest are empty. */
export function emptyResult(fields: Partial<ExecuteResult> & Pick<ExecuteResult, 'aborted' | 'timedOut' | 'transportFailed'>): ExecuteResult {
  return { exitCode: null, signal: null, stdout: '', stderrBytes: 0, stdoutTruncated: false, ...fields };
}

export interface CommandExecutor {
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
  /** Releases pooled connections, if the transport keeps any. */
  close?(): Promise<void>;
}
