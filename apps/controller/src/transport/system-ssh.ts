// Runs the helper through the system `ssh` client, spawned with an argv and never a local shell.
import { MAX_STDOUT_BYTES, collect, configArgs, sshArgv, sshEnv, type ProcessResult, type SshClientSettings } from '@occ-ssh/ssh-client';
import type { CommandExecutor, ExecuteRequest, ExecuteResult, HostTarget, RemoteCall } from './executor.js';
import { sshStderrCause } from './failure-cause.js';
import { JumpConfigFile } from './ssh-args.js';

export { MAX_STDOUT_BYTES };
/** ssh's own exit status for connection, authentication and host-key failures. */
const SSH_FAILURE_EXIT = 255;

export class SystemSshCommandExecutor implements CommandExecutor {
  constructor(
    private readonly settings: SshClientSettings,
    private readonly sshPath = 'ssh',
    private readonly extraArgs: readonly string[] = [],
  ) {}

  private jump: JumpConfigFile | undefined;

  argv(request: { host: HostTarget; call: Pick<RemoteCall, 'argv'> }): string[] {
    return sshArgv(this.settings, request.host, request.call.argv, this.extraArgs, this.jumpConfig());
  }

  /** The argv of a control command (`-O exit`) beside the calls: the same -F/-J and options, no remote command. */
  controlArgv(host: HostTarget, control: readonly string[]): string[] {
    return sshArgv(this.settings, host, undefined, [...this.extraArgs, ...control], this.jumpConfig());
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

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const run = await collect(this.sshPath, this.argv(request), {
      stdin: request.call.stdin,
      timeoutMs: request.timeoutMs,
      env: sshEnv(),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onStdout ? { onStdout: request.onStdout } : {}),
    });
    return executeResult(run);
  }
}

/** A client run as the transport result; stderr leaves only as its size and the cause it names. */
function executeResult(run: ProcessResult): ExecuteResult {
  const transportFailed = run.spawnFailed || run.exitCode === SSH_FAILURE_EXIT;
  return {
    exitCode: run.exitCode,
    signal: run.signal,
    stdout: run.stdout,
    stderrBytes: run.stderrBytes,
    stdoutTruncated: run.stdoutTruncated,
    timedOut: run.timedOut,
    aborted: run.aborted,
    transportFailed,
    ...(transportFailed ? { transportCause: run.spawnFailed ? 'unknown' : sshStderrCause(run.stderrHead) } : {}),
  };
}
