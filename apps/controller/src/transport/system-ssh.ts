// Runs the helper through the system `ssh` client, spawned with an argv and never a local shell.
import { spawn } from 'node:child_process';
import type { CommandExecutor, ExecuteRequest, ExecuteResult } from './executor.js';
import { sshStderrCause } from './failure-cause.js';
import { JumpConfigFile, configArgs, sshArgv, type SshClientSettings } from './ssh-args.js';

export const MAX_STDOUT_BYTES = 4 * 1024 * 1024;
const KILL_GRACE_MS = 3000;
/** ssh's own exit status for connection, authentication and host-key failures. */
const SSH_FAILURE_EXIT = 255;
/** ssh's own diagnostics come first and are short; only this much is kept, to name the cause. */
const STDERR_KEPT_BYTES = 8 * 1024;

export class SystemSshCommandExecutor implements CommandExecutor {
  constructor(
    private readonly settings: SshClientSettings,
    private readonly sshPath = 'ssh',
    private readonly extraArgs: readonly string[] = [],
  ) {}

  private jump: JumpConfigFile | undefined;

  argv(request: Pick<ExecuteRequest, 'host' | 'remoteCommand'>): string[] {
    return sshArgv(this.settings, request.host, request.remoteCommand, this.extraArgs, this.jumpConfig());
  }

  /** `-F`/`-J` as every call of this executor uses them (for control commands beside the calls). */
  configArgs(): string[] {
    return configArgs(this.jumpConfig());
  }

  /** Removes the jump host's generated ssh_config, if any; a later call writes it again. */
  async close(): Promise<void> {
    this.jump?.remove();
    this.jump = undefined;
  }

  private jumpConfig(): JumpConfigFile | undefined {
    const { jumpHost } = this.settings;
    if (!jumpHost) return undefined;
    this.jump ??= new JumpConfigFile({ ...this.settings, jumpHost });
    return this.jump;
  }

  execute(request: ExecuteRequest): Promise<ExecuteResult> {
    return new Promise((resolve) => {
      const child = spawn(this.sshPath, this.argv(request), { stdio: ['pipe', 'pipe', 'pipe'], env: sshEnv() });
      const chunks: Buffer[] = [];
      let stdoutBytes = 0;
      let stderrBytes = 0;
      const stderrHead: Buffer[] = [];
      let truncated = false;
      let timedOut = false;
      let aborted = false;
      let spawnFailed = false;
      let killTimer: NodeJS.Timeout | undefined;

      const terminate = () => {
        child.kill('SIGTERM');
        killTimer ??= setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        terminate();
      }, request.timeoutMs);
      const onAbort = () => {
        aborted = true;
        terminate();
      };
      if (request.signal?.aborted) onAbort();
      request.signal?.addEventListener('abort', onAbort, { once: true });

      child.stdout.on('data', (chunk: Buffer) => {
        request.onStdout?.(chunk);
        if (stdoutBytes + chunk.length > MAX_STDOUT_BYTES) {
          // A helper never prints this much: stop the session rather than read on.
          if (!truncated) terminate();
          truncated = true;
          return;
        }
        stdoutBytes += chunk.length;
        chunks.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderrBytes < STDERR_KEPT_BYTES) stderrHead.push(chunk.subarray(0, STDERR_KEPT_BYTES - stderrBytes));
        stderrBytes += chunk.length;
      });
      child.stdin.on('error', () => undefined);
      child.on('error', () => {
        spawnFailed = true;
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (killTimer) clearTimeout(killTimer);
        request.signal?.removeEventListener('abort', onAbort);
        const transportFailed = spawnFailed || code === SSH_FAILURE_EXIT;
        resolve({
          exitCode: code,
          signal,
          stdout: Buffer.concat(chunks).toString('utf8'),
          stderrBytes,
          stdoutTruncated: truncated,
          timedOut,
          aborted,
          transportFailed,
          ...(transportFailed ? { transportCause: spawnFailed ? 'unknown' : sshStderrCause(Buffer.concat(stderrHead).toString('utf8')) } : {}),
        });
      });
      child.stdin.end(request.stdin);
    });
  }
}

/** The client sees no agent socket and no inherited locale or config variables. */
function sshEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C' };
}
