// Builds the executor the Installation selects.
import type { SshComputeConfiguration } from '../config/index.js';
import type { CommandExecutor } from './executor.js';
import { SystemSshCommandExecutor } from './system-ssh.js';

export function createExecutor(config: SshComputeConfiguration): CommandExecutor {
  const settings = { identityFile: config.ssh.identityFile, knownHostsFile: config.ssh.knownHostsFile, connectTimeoutSeconds: config.ssh.connectTimeoutSeconds };
  switch (config.transport) {
    default:
      return new SystemSshCommandExecutor(settings);
  }
}
