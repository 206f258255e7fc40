// Public surface of the Installation configuration: load it once, then look up hosts and settings.
export { MAX_ADDRESS_LENGTH, hostAddressProblem } from './address.js';
export { DOCUMENT_LABEL, configurationError, formatProblem, renderKeyPath, type KeyPath, type Problem } from './errors.js';
export { hostFor, runtimeSettingsFor, type ResolvedHost } from './hosts.js';
export { loadInstallationConfiguration, type InstallationSource } from './load.js';
export { parseConfiguration } from './plain.js';
export {
  DEFAULT_SYSTEMD_UNIT_DIRECTORY,
  TRANSPORTS,
  sshComputeConfigurationSchema,
  type HostConfiguration,
  type SshComputeConfiguration,
  type Transport,
} from './schema.js';
export { CONFIGURATION_PATH } from './validate.js';
