// Builds the executor the Installation selects.
import type { SshComputeConfiguration } from '../config/index.js';
import type { CommandExecutor } from './executor.js';
import { OpenSshMuxExecutor } from './openssh-mux.js';
import type { SshClientSettings } from '@occ-ssh/ssh-client';
import { assertNever } from '@occ-ssh/protocol';
import { Ssh2PoolExecutor } from './ssh2-pool.js';
import { SystemSshCommandExecutor } from './system-ssh.js';

export function createExecutor(config: SshComputeConfiguration): CommandExecutor {
  const settings: SshClientSettings = {
    identityFile: config.ssh.identityFile,
    knownHostsFile: config.ssh.knownHostsFile,
    connectTimeoutSeconds: config.ssh.connectTimeoutSeconds,
    ...(config.ssh.jumpHost ? { jumpHost: config.ssh.jumpHost } : {}),
  };
  switch (config.transport) {
    case 'system-ssh':
      return new SystemSshCommandExecutor(settings);
    case 'openssh-mux':
      return new OpenSshMuxExecutor(settings);
    case 'ssh2':
      return new Ssh2PoolExecutor(settings, { maxChannelsPerHost: config.maxConcurrentOperationsPerHost });
    default:
      return assertNever(config.transport, 'transport');
  }
}
