// The exact argv of the system ssh client: strict host keys, batch mode, explicit files.
import type { HostTarget } from './executor.js';

export interface SshClientSettings {
  identityFile: string;
  knownHostsFile: string;
  connectTimeoutSeconds: number;
}

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

export function sshArgv(settings: SshClientSettings, host: HostTarget, remoteCommand: string, extra: readonly string[] = []): string[] {
  return [
    '-F',
    'none',
    '-T',
    ...sshOptions(settings),
    ...extra,
    '-p',
    String(host.port),
    '-l',
    host.user,
    '--',
    host.address,
    remoteCommand,
  ];
}
