// The one operation runner: every helper call the driver makes passes here, through the host's
// limiter, with one log line per call that carries no secrets.
import { randomUUID } from 'node:crypto';
import { toComputeError, type OperationArgs, type OperationName } from '@occ-ssh/protocol';
import { hostFor, runtimeSettingsFor } from './config/hosts.js';
import type { SshComputeConfiguration } from './config/schema.js';
import type { DriverDeps } from './deps.js';
import type { Lane } from './limiter.js';
import { machineOf } from './telemetry.js';
import type { HostTarget } from './transport/executor.js';
import { OPERATION_TIMEOUT_MS, runOperation, type OperationOutcome } from './transport/run-operation.js';
import { DRIVER_VERSION } from './version.js';

/** OCC's runtime reads: they take the limiter's view slots, so slow activations never hold them up. */
const VIEW_LANE: ReadonlySet<OperationName> = new Set(['describe-runtime', 'diagnose-deployment', 'read-logs']);
const laneOf = (operation: OperationName): Lane => (VIEW_LANE.has(operation) ? 'view' : 'operation');

export class OperationRunner {
  constructor(
    private readonly config: SshComputeConfiguration,
    private readonly deps: DriverDeps,
    private readonly operationTimeoutMs = OPERATION_TIMEOUT_MS,
  ) {}

  /** One helper invocation on the Namespace's host, bounded per host and logged without secrets. */
  async run<O extends OperationName>(namespaceName: string, operation: O, args: OperationArgs<O>, signal: AbortSignal | undefined, fields: Record<string, string>): Promise<OperationOutcome<O>> {
    const resolved = hostFor(this.config, namespaceName);
    const host: HostTarget = { name: resolved.name, address: resolved.address, port: resolved.port, user: resolved.user };
    const { executor, helper, logger, observer, limiter } = this.deps;
    // Every line of this operation, failures included, names the machine, the Namespace and the request ID.
    const requestId = randomUUID();
    const log = logger.child({ host: machineOf(host), namespaceName: host.name, operation, requestId, ...fields });
    const started = Date.now();
    try {
      const progress = observer.progress;
      const onHeartbeat = progress && ((seq: number) => progress({ host: machineOf(host), namespaceName: host.name, operation, heartbeats: seq + 1, elapsedMs: Date.now() - started }));
      const request = { operation, args, host, requestId, runtime: runtimeSettingsFor(this.config, namespaceName), ...(signal ? { signal } : {}), ...(onHeartbeat ? { onHeartbeat } : {}) };
      // Keyed by the connection, not the Namespace: several Namespaces may share one host.
      const outcome = await limiter.run(
        `${host.user}@${host.address}:${host.port}`,
        () => runOperation(executor, helper, DRIVER_VERSION, request, this.operationTimeoutMs, observer.trace),
        laneOf(operation),
      );
      log.info({ durationMs: Date.now() - started, timings: outcome.timings }, 'operation succeeded');
      return outcome;
    } catch (error) {
      const failure = toComputeError(error, { host: host.name, operation });
      log.warn({ durationMs: Date.now() - started, code: failure.code, failure: failure.failure, reason: failure.message }, 'operation failed');
      throw failure;
    }
  }

  /** Releases transport resources (pooled connections). */
  async close(): Promise<void> {
    await this.deps.executor.close?.();
  }
}
