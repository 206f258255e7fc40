// The benchmark's own ssh clients: the bare baselines (a new connection, or an OpenSSH
// ControlMaster set up here) with exactly the driver's strict client argv and collector, and a
// quick shell on a host for reading measurements.
import { collect, sshArgv, start, sshEnv, type SshClientSettings, type SshDestination, type Started } from '@occ-ssh/ssh-client';
import type { BenchHost } from './installation.js';

export function settingsOf(host: BenchHost): SshClientSettings {
  return { identityFile: host.identityFile, knownHostsFile: host.knownHostsFile, connectTimeoutSeconds: 10 };
}

function targetOf(host: BenchHost, name = host.name): SshDestination {
  return { name, address: host.address, port: host.port, user: 'root' };
}

export interface SshOutcome {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One ssh client run through the driver's own collector, with the environment the driver gives ssh. */
export async function runSsh(argv: readonly string[], input: string | Buffer = ''): Promise<SshOutcome> {
  const started = performance.now();
  const result = await collect('ssh', argv, { stdin: Buffer.from(input), timeoutMs: 120_000, env: sshEnv() });
  return { ms: performance.now() - started, code: result.exitCode, stdout: result.stdout, stderr: result.stderrHead };
}

async function mustSsh(argv: readonly string[], input?: string | Buffer): Promise<SshOutcome> {
  const outcome = await runSsh(argv, input);
  if (outcome.code !== 0) throw new Error(`ssh ${argv.at(-1) ?? ''} exited ${String(outcome.code)}: ${outcome.stderr.trim().slice(0, 500)}`);
  return outcome;
}

/** The bare baseline over a new connection: the driver's argv with `<node> -e 0` as the command. */
export function bareNodeArgv(host: BenchHost): string[] {
  return sshArgv(settingsOf(host), targetOf(host), `${host.nodePath} -e 0`);
}

const masters = new Set<Started['child']>();
process.on('exit', () => {
  for (const child of masters) child.kill('SIGTERM');
});

/**
 * An OpenSSH master connection started by this process (a child, never daemonised) and the
 * client argv that reuses it; stopped by its own pid.
 */
export class ControlMaster {
  private constructor(
    private readonly host: BenchHost,
    private readonly controlPath: string,
    private readonly child: Started['child'],
  ) {}

  static async start(host: BenchHost, controlPath: string): Promise<ControlMaster> {
    const argv = sshArgv(settingsOf(host), targetOf(host), undefined, ['-M', '-N', '-o', `ControlPath=${controlPath}`, '-o', 'ControlPersist=no']);
    const { child } = start('ssh', argv, { env: sshEnv() });
    masters.add(child);
    child.on('exit', () => masters.delete(child));
    const master = new ControlMaster(host, controlPath, child);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`ssh master to ${host.address} exited ${child.exitCode}`);
      const check = await runSsh(sshArgv(settingsOf(host), targetOf(host), undefined, ['-o', `ControlPath=${controlPath}`, '-O', 'check']));
      if (check.code === 0) return master;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    master.stop();
    throw new Error(`ssh master to ${host.address} did not come up`);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The driver's strict argv, reusing this master and never starting one. */
  argv(remoteCommand: string): string[] {
    return sshArgv(settingsOf(this.host), targetOf(this.host), remoteCommand, ['-o', 'ControlMaster=no', '-o', `ControlPath=${this.controlPath}`]);
  }

  /** Runs a shell command on the host over the master; throws on a nonzero exit. */
  async sh(command: string, input?: string | Buffer): Promise<string> {
    return (await mustSsh(this.argv(command), input)).stdout;
  }

  stop(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
  }
}
