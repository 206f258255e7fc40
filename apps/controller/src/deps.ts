// The driver's dependencies, made in one place: OCC gets the defaults, tests and tools replace any of
// them (a helper artifact, so unit tests need no build; a scripted executor; an in-memory logger).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readArtifact, type HelperArtifact } from '@occ-ssh/helper-call';
import { assertNever, ComputeError } from '@occ-ssh/protocol';
import type { SshClientSettings } from '@occ-ssh/ssh-client';
import type { SshComputeConfiguration } from './config/schema.js';
import { HostLimiter, sessionsPerHost } from './limiter.js';
import { createLogger, type Logger } from './logging.js';
import type { HelperProgress } from './public-types.js';
import type { HelperTracer } from './telemetry.js';
import type { CommandExecutor } from './transport/executor.js';
import { OpenSshMuxExecutor } from './transport/openssh-mux.js';
import { Ssh2PoolExecutor } from './transport/ssh2-pool.js';
import { SystemSshCommandExecutor } from './transport/system-ssh.js';

export type { HelperArtifact };

/** What the world learns of each helper call besides the log line. */
interface OperationObserver {
  /** Wraps each call; when absent, runOperation's one default: spans and metrics through @opentelemetry/api. */
  trace?: HelperTracer;
  /** Told of each helper heartbeat (one per change the helper begins, one a second while it waits), for operator progress. */
  progress?: (progress: HelperProgress) => void;
}

export interface DriverDeps {
  helper: HelperArtifact;
  executor: CommandExecutor;
  logger: Logger;
  observer: OperationObserver;
  /** Bounds the operations in flight on one host, whichever Namespaces share it, and on all hosts together. */
  limiter: HostLimiter;
}

/** Each dependency not given is built from the configuration; the helper artifact is read only when not given. */
export function createDefaultDeps(configuration: SshComputeConfiguration, given: Partial<DriverDeps> = {}): DriverDeps {
  const logger = given.logger ?? createLogger();
  const executor = given.executor ?? createExecutor(configuration);
  return {
    logger,
    executor,
    helper: given.helper ?? loadHelperArtifact(),
    observer: given.observer ?? {},
    limiter: given.limiter ?? new HostLimiter(configuration.maxConcurrentOperationsPerHost, configuration.maxConcurrentOperations),
  };
}

/** The executor the Installation's `transport` selects. */
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
      return new Ssh2PoolExecutor(settings, { maxChannelsPerHost: sessionsPerHost(config.maxConcurrentOperationsPerHost) });
    default:
      return assertNever(config.transport, 'transport');
  }
}

/** Set by the release build: a package finds its helper beside the module, never in a workspace. */
declare const OCC_SSH_PACKAGED: boolean | undefined;

/** The host helper this controller ships, one CommonJS file: next to the bundled controller (a package or dist), or the workspace build output when run from source. */
const CANDIDATES = typeof OCC_SSH_PACKAGED === 'boolean' && OCC_SSH_PACKAGED ? ['./host-helper.cjs'] : ['./host-helper.cjs', '../../../dist/apps/host-helper/host-helper.cjs'];

let cached: HelperArtifact | undefined;

/** Read once and identified by SHA-256. */
export function loadHelperArtifact(): HelperArtifact {
  if (cached) return cached;
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (!existsSync(path)) continue;
    cached = readArtifact(readFileSync(path), path);
    return cached;
  }
  throw new ComputeError('configuration', 'the host helper artifact (host-helper.cjs beside the controller module) is missing; build the workspace (npm run build) or reinstall the package');
}
