// Runs the helper through the system `ssh` client, spawned with an argv and never a local shell; the
// strict argv itself is @occ-ssh/ssh-client's (shared with the test hosts, chaos and bench).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_STDOUT_BYTES, collect, configArgs, jumpHostConfig, sshArgv, sshEnv, type JumpConfig, type JumpHostSettings, type ProcessResult, type SshClientSettings } from '@occ-ssh/ssh-client';
import type { CommandExecutor, ExecuteRequest, ExecuteResult, HostTarget, RemoteCall } from './executor.js';
import { sshStderrCause } from './failure-cause.js';

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

/** The jump host's ssh_config, one per executor: a private directory holding it for as long as its executor lives. */
export class JumpConfigFile implements JumpConfig {
  readonly path: string;
  private readonly directory: string;

  constructor(settings: SshClientSettings & { jumpHost: JumpHostSettings }, baseDirectory = tmpdir()) {
    // mkdtemp makes a 0700 directory owned by this process's user; the file is 0600 inside it.
    this.directory = mkdtempSync(join(baseDirectory, 'occ-ssh-jump-'));
    // OpenSSH puts `-F <path>` into the jump hop's command line, which a shell splits: plain characters only.
    if (!/^[A-Za-z0-9._/-]+$/.test(this.directory)) {
      rmSync(this.directory, { recursive: true, force: true });
      throw new Error(`the jump host's ssh_config directory ${JSON.stringify(this.directory)} must be a plain path; set TMPDIR to one`);
    }
    this.path = join(this.directory, 'ssh_config');
    writeFileSync(this.path, jumpHostConfig(settings), { mode: 0o600, flag: 'wx' });
    chmodSync(this.path, 0o600);
  }

  remove(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }
}
