// Public API of the SSH Compute Driver controller library, and the entry OCC's package loader imports.
export { configurationSchema, validateConfiguration, createDriver, type CreateDriverOptions } from './package-entry.js';
export { SshComputeDriver, type SshComputeDriverOptions } from './driver.js';
export { loadInstallationConfiguration, parseConfiguration, DEFAULT_SYSTEMD_UNIT_DIRECTORY, hostFor, runtimeSettingsFor, type SshComputeConfiguration, type ResolvedHost } from './config/index.js';
export { sshGatewayConfigurationDocument, MANAGED_PASSWORD_REF, type RenderedDocument } from './admission/document.js';
export { validateHarnessAuth, admitRevision, admitContext, SUPPORTED_HARNESS } from './admission/harness.js';
export { SystemSshCommandExecutor } from './transport/system-ssh.js';
export { OpenSshMuxExecutor } from './transport/openssh-mux.js';
export { Ssh2PoolExecutor } from './transport/ssh2-pool.js';
export { createExecutor } from './transport/select.js';
export { hostKeyAccepted } from './transport/known-hosts.js';
export { sshArgv, type SshClientSettings } from '@occ-ssh/ssh-client';
export type { CommandExecutor, ExecuteRequest, ExecuteResult, HostTarget } from './transport/executor.js';
export { createLogger, REDACTED_PATHS, type Logger } from './logging.js';
export { loadHelperArtifact, type HelperArtifact } from './helper-artifact.js';
export { DRIVER_VERSION } from './version.js';
export { ComputeError, ERROR_CODES, FAILURE_OF, type ErrorCode, type Failure } from '@occ-ssh/protocol';
export type { PrepareFailureDiagnostic } from './diagnostics.js';
export type * from './types.js';
