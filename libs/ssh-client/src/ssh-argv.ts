// The exact argv of the system ssh client: strict host keys, batch mode, explicit files. Every
// ssh the controller, the test hosts, chaos and the benchmarks spawn is built here.
import { remoteCommand } from './remote-command.js';

export interface JumpHostSettings {
  address: string;
  port: number;
  user: string;
}

/** The product's keepalive: a host silent for 3 intervals is given up. */
export const SERVER_ALIVE_INTERVAL_SECONDS = 15;

export interface SshClientSettings {
  identityFile: string;
  knownHostsFile: string;
  connectTimeoutSeconds: number;
  /** A bastion every connection goes through, checked against the same known_hosts file. */
  jumpHost?: JumpHostSettings;
  /** Seconds between keepalives (default 15); chaos uses less to notice a rebooted host sooner. */
  serverAliveIntervalSeconds?: number;
}

/** Where one ssh call goes: any login name, so a bastion or a test host is reached alike. */
export interface SshDestination {
  address: string;
  port: number;
  user: string;
  name?: string;
}

/** An ssh_config file written for the jump host (see jumpHostConfig). */
export interface JumpConfig {
  readonly path: string;
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
    `ServerAliveInterval=${settings.serverAliveIntervalSeconds ?? SERVER_ALIVE_INTERVAL_SECONDS}`,
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
  const options = sshOptions(settings)
    .filter((_, i) => i % 2 === 1)
    .map((option) => `  ${option.replace('=', ' ')}`);
  return [`Host ${JUMP_ALIAS}`, `  HostName ${address}`, `  Port ${port}`, `  User ${user}`, ...options, ''].join('\n');
}

/** `-F` and `-J` for every ssh call: no config file, or the jump host's. */
export function configArgs(jump: JumpConfig | undefined): string[] {
  return jump ? ['-F', jump.path, '-J', JUMP_ALIAS] : ['-F', 'none'];
}

/**
 * The strict argv for one call. `command` is the remote command line, or an argv rendered through
 * remoteCommand() (words quoted for the remote shell), or absent for a control command in `extra`
 * (`-O exit`). `extra` goes after the strict options, so it cannot loosen them: ssh keeps the first
 * value it reads for an option.
 */
export function sshArgv(settings: SshClientSettings, host: SshDestination, command?: string | readonly string[], extra: readonly string[] = [], jump?: JumpConfig): string[] {
  const line = command === undefined ? [] : [typeof command === 'string' ? command : remoteCommand(command)];
  return [...configArgs(jump), '-T', ...sshOptions(settings), ...extra, '-p', String(host.port), '-l', host.user, '--', host.address, ...line];
}

/**
 * Options that share one connection per control socket: the first client becomes the master, which
 * outlives it by `persistSeconds` unused; later clients open sessions on it. ssh falls back to a
 * connection of its own when the master cannot take a session (at sshd's MaxSessions).
 */
export function multiplexOptions(controlPath: string, persistSeconds: number): string[] {
  return ['-o', 'ControlMaster=auto', '-o', `ControlPath=${controlPath}`, '-o', `ControlPersist=${persistSeconds}`];
}

/** The `extra` of a control command asking the master at `controlPath` to exit (no remote command). */
export function masterExitOptions(controlPath: string): string[] {
  return ['-o', `ControlPath=${controlPath}`, '-O', 'exit'];
}

/** The client sees no agent socket and no inherited locale or config variables. */
export function sshEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C' };
}
