// The driver's dependencies, made in one place: OCC gets the defaults, tests and tools replace any of
// them (a helper artifact, so unit tests need no build; a scripted executor; an in-memory logger).
import type { OperationName } from '@occ-ssh/protocol';
import type { SshComputeConfiguration } from './config/index.js';
import { loadHelperArtifact, type HelperArtifact } from './helper-artifact.js';
import { HostLimiter } from './limiter.js';
import { createLogger, type Logger } from './logging.js';
import { inHelperSpan, type HelperTracer } from './telemetry.js';
import type { CommandExecutor } from './transport/executor.js';
import { createExecutor } from './transport/select.js';

export interface HelperProgress {
  host: string;
  operation: OperationName;
  /** Heartbeats seen so far in this invocation. */
  heartbeats: number;
  elapsedMs: number;
}

/** What the world learns of each helper call besides the log line. */
interface OperationObserver {
  /** Wraps each call: spans and metrics through @opentelemetry/api by default. */
  trace: HelperTracer;
  /** Told of each helper heartbeat (one per change the helper begins, one a second while it waits), for operator progress. */
  progress?: (progress: HelperProgress) => void;
}

export interface DriverDeps {
  helper: HelperArtifact;
  executor: CommandExecutor;
  logger: Logger;
  observer: OperationObserver;
  /** Bounds the operations in flight on one host, whichever Namespaces share it. */
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
    observer: given.observer ?? { trace: inHelperSpan },
    limiter: given.limiter ?? new HostLimiter(configuration.maxConcurrentOperationsPerHost),
  };
}
