// Bounded capture of a child's output, shared by spawned clients and ssh2 channels.

/** A helper never prints this much: past it a call's output is not read on. */
export const MAX_STDOUT_BYTES = 4 * 1024 * 1024;
/** A client's own diagnostics come first and are short; only this much stderr is kept, to name a cause. */
export const STDERR_KEPT_BYTES = 8 * 1024;

export interface OutputLimits {
  maxStdoutBytes?: number;
  stderrKeptBytes?: number;
  /** Each stdout chunk as it arrives, kept or not: the helper's heartbeats, for progress. */
  onStdout?: (chunk: Buffer) => void;
  /** Each stderr chunk as it arrives, kept or not: a tool's progress, echoed live. */
  onStderr?: (chunk: Buffer) => void;
  /** Called once, on the first chunk past the stdout bound. */
  onOverflow?: () => void;
}

/** The captured part of a run, as one shape for every transport. */
export interface CapturedOutput {
  stdout: string;
  /** The first stderrKeptBytes of stderr; never leaves the transport (it may echo host details). */
  stderrHead: string;
  stderrBytes: number;
  stdoutTruncated: boolean;
}

export class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private readonly stderrChunks: Buffer[] = [];
  private stdoutBytes = 0;
  private stderrBytes = 0;
  private truncated = false;
  private readonly maxStdout: number;
  private readonly stderrKept: number;

  constructor(private readonly limits: OutputLimits = {}) {
    this.maxStdout = limits.maxStdoutBytes ?? MAX_STDOUT_BYTES;
    this.stderrKept = limits.stderrKeptBytes ?? STDERR_KEPT_BYTES;
  }

  readonly stdout = (chunk: Buffer): void => {
    this.limits.onStdout?.(chunk);
    if (this.truncated) return;
    if (this.stdoutBytes + chunk.length > this.maxStdout) {
      // Nothing after the first chunk past the bound is kept: the captured text stays a prefix.
      this.truncated = true;
      this.limits.onOverflow?.();
      return;
    }
    this.stdoutBytes += chunk.length;
    this.chunks.push(chunk);
  };

  readonly stderr = (chunk: Buffer): void => {
    this.limits.onStderr?.(chunk);
    if (this.stderrBytes < this.stderrKept) this.stderrChunks.push(chunk.subarray(0, this.stderrKept - this.stderrBytes));
    this.stderrBytes += chunk.length;
  };

  captured(): CapturedOutput {
    return {
      stdout: Buffer.concat(this.chunks).toString('utf8'),
      stderrHead: Buffer.concat(this.stderrChunks).toString('utf8'),
      stderrBytes: this.stderrBytes,
      stdoutTruncated: this.truncated,
    };
  }
}
