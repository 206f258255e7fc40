// Public API of the SSH Compute Driver controller library, and the entry OCC's package loader
// imports. docs/api/compute-driver.api.md is its report; what workspace tools need beyond it is in
// ./internal.ts, which the release package does not carry.
export { configurationSchema, validateConfiguration, createDriver, type CreateDriverOptions } from './package-entry.js';
export { SshComputeDriver, type PlanIntent, type SshComputeDriverOptions } from './driver.js';
export { loadInstallationConfiguration, parseConfiguration, DEFAULT_SYSTEMD_UNIT_DIRECTORY, TRANSPORTS, type SshComputeConfiguration } from './config/index.js';
export type { InstallationSource } from './config/load.js';
export type { HostConfiguration, JumpHost, Transport } from './config/schema.js';
export type { CommandExecutor, ExecuteRequest, ExecuteResult, HostTarget, RemoteCall } from './transport/executor.js';
export { TRANSPORT_CAUSES, type TransportCause } from './transport/failure-cause.js';
export { createLogger, type Logger } from './logging.js';
export type { HelperArtifact } from './deps.js';
export { DRIVER_VERSION, PACKAGE_NAME } from './version.js';
export { ComputeError, ERROR_CODES, FAILURE_OF, toComputeError, type ErrorCode, type ErrorDetails, type Failure } from '@occ-ssh/protocol';
export type * from './public-types.js';
export type * from './runtime-types.js';
export type { PrepareFailureDiagnostic } from './diagnostics.js';
export type * from './types.js';
