// Public surface of the Installation configuration: load it once, then look up hosts and settings.
export { hostFor, runtimeSettingsFor } from './hosts.js';
export { loadInstallationConfiguration } from './load.js';
export { parseConfiguration } from './plain.js';
export { DEFAULT_SYSTEMD_UNIT_DIRECTORY, TRANSPORTS, sshComputeConfigurationSchema, type SshComputeConfiguration } from './schema.js';
