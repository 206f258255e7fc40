// The exact argv of the system ssh client: strict host keys, batch mode, explicit files. Every
// ssh the controller spawns is built here; tools (test hosts, chaos, bench) are meant to use it too.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostTarget } from './executor.js';
import { remoteCommand } from './remote-command.js';

export interface JumpHostSettings {
  address: string;
  port: number;
  user: string;
}

export interface SshClientSettings {
  identityFile: string;
  knownHostsFile: string;
  connectTimeoutSeconds: number;
  /** A bastion every connection goes through, checked against the same known_hosts file. */
  jumpHost?: JumpHostSettings;
}

/** The Host name the jump host has in the generated ssh_config. */
export const JUMP_ALIAS = 'occ-ssh-jump';

/** Options that keep the client strict whatever the machine's ssh_config says (it is not read). */
export function sshOptions(settings: SshClientSettings): string[] {
  const options = [
    'BatchMode=yes',
    'StrictHostKeyChecking=yes',
    'IdentitiesOnly=yes',
    `IdentityFile=${settings.identityFile}`,
    `UserKnownHostsFile=${settings.knownHostsFile}`,
    'GlobalKnownHostsFile=/dev/null',
    'UpdateHostKeys=no',
    `ConnectTimeout=${settings.connectTimeoutSeconds}`,
    'LogLevel=ERROR',
    'ForwardAgent=no',
    'ForwardX11=no',
    'ClearAllForwardings=yes',
    'PasswordAuthentication=no',
    'KbdInteractiveAuthentication=no',
    'ServerAliveInterval=15',
    'ServerAliveCountMax=3',
  ];
  return options.flatMap((option) => ['-o', option]);
}

/**
 * ssh_config text for the jump host. OpenSSH runs a ProxyJump hop as `ssh -F <this file> -W ...`,
 * without the command line's -o options, so the same strict options must be in the file.
 */
export function jumpHostConfig(settings: SshClientSettings & { jumpHost: JumpHostSettings }): string {
  const { address, port, user } = settings.jumpHost;
  const options = sshOptions(settings).filter((_, i) => i % 2 === 1).map((option) => `  ${option.replace('=', ' ')}`);
  return [`Host ${JUMP_ALIAS}`, `  HostName ${address}`, `  Port ${port}`, `  User ${user}`, ...options, ''].join('\n');
}

/** A private directory holding the jump host's ssh_config, for as long as its executor lives. */
export class JumpConfigFile {
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

/** `-F` and `-J` for every ssh call of an executor: no config file, or the jump host's. */
export function configArgs(jump: JumpConfigFile | undefined): string[] {
  return jump ? ['-F', jump.path, '-J', JUMP_ALIAS] : ['-F', 'none'];
}

/** Where one ssh call goes: a HostTarget, or any login name, so tools can reach a bastion or a test host alike. */
export type SshDestination = Pick<HostTarget, 'address' | 'port'> & { user: string; name?: string };

/**
 * The strict argv for one call. `command` is the remote command line, or an argv rendered through
 * remoteCommand() (words quoted for the remote shell), or absent for a control command in `extra`
 * (`-O exit`). `extra` goes after the strict options, so it cannot loosen them: ssh keeps the first
 * value it reads for an option.
 */
export function sshArgv(settings: SshClientSettings, host: SshDestination, command?: string | readonly string[], extra: readonly string[] = [], jump?: JumpConfigFile): string[] {
  const line = command === undefined ? [] : [typeof command === 'string' ? command : remoteCommand(command)];
  return [...configArgs(jump), '-T', ...sshOptions(settings), ...extra, '-p', String(host.port), '-l', host.user, '--', host.address, ...line];
}

/** The client sees no agent socket and no inherited locale or config variables. */
export function sshEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C' };
}
