// One helper invocation, from the driver's call to the executor: the Namespace's host and runtime
// settings, one request ID, a slot of the host's limiter, the call built and sent inside its span, the
// helper's final line read as a result or a classified ComputeError, and one log line without secrets.
import { randomUUID } from 'node:crypto';
import {
  ComputeError,
  OPERATIONS,
  PROTOCOL_VERSION,
  resourcesOf,
  toComputeError,
  type HelperTimings,
  type OperationArgs,
  type OperationName,
  type OperationResult,
  type ResourceIds,
  type RuntimeSettings,
} from '@occ-ssh/protocol';
import { buildHelperCall, heartbeatReader, readHelperOutput, type HelperArtifact, type HelperCall } from '@occ-ssh/helper-call';
import { hostFor, runtimeSettingsFor } from './config/hosts.js';
import type { SshComputeConfiguration } from './config/schema.js';
import type { DriverDeps } from './deps.js';
import type { Lane } from './limiter.js';
import type { ExecuteResult, HostTarget } from './transport/executor.js';
import { inHelperSpan, machineOf, resourceAttributes } from './telemetry.js';
import { CAUSE_ADVICE } from './transport/failure-cause.js';
import { DRIVER_VERSION } from './version.js';

/** The transport bound of one operation; the helper stops itself at 170 s. */
export const OPERATION_TIMEOUT_MS = 180_000;

export interface OperationOutcome<O extends OperationName> {
  result: OperationResult<O>;
  timings: HelperTimings;
  requestId: string;
  argumentBytes: number;
}

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
  async run<O extends OperationName>(namespaceName: string, operation: O, args: OperationArgs<O>, signal?: AbortSignal): Promise<OperationOutcome<O>> {
    const resolved = hostFor(this.config, namespaceName);
    const host: HostTarget = { name: resolved.name, address: resolved.address, port: resolved.port, user: resolved.user };
    const { executor, helper, logger, observer, limiter } = this.deps;
    const timeoutMs = this.operationTimeoutMs;
    // Every line of this operation, failures included, names the machine, the Namespace and the request ID.
    const requestId = randomUUID();
    const ids = resourcesOf(operation, args);
    const log = logger.child({ host: machineOf(host), namespaceName: host.name, operation, requestId, ...logFields(ids) });
    const details = { host: host.name, operation, requestId };
    const started = Date.now();
    try {
      const progress = observer.progress;
      const onHeartbeat = progress && ((seq: number) => progress({ host: machineOf(host), namespaceName: host.name, operation, heartbeats: seq + 1, elapsedMs: Date.now() - started }));
      // The host's slot, keyed by the connection, not the Namespace (several Namespaces may share one
      // host), then one of the controller's; a cancelled call stops waiting for them.
      const release = await limiter.take(`${host.user}@${host.address}:${host.port}`, laneOf(operation), signal);
      let outcome: OperationOutcome<O>;
      try {
        const call = buildWithDetails(operation, args, runtimeSettingsFor(this.config, namespaceName), helper, requestId, details);
        if (signal?.aborted) throw new ComputeError('cancelled', `${operation} cancelled before it was sent`, details);
        const span = {
          host,
          namespace: host.name,
          operation,
          requestId,
          attributes: resourceAttributes(ids),
        };
        // The one tracer default: a span and the metrics of the call through @opentelemetry/api.
        const trace = observer.trace ?? inHelperSpan;
        outcome = await trace(span, async () => {
          const onStdout = onHeartbeat ? heartbeatReader(onHeartbeat) : undefined;
          const exec = await executor.execute({ host, call, timeoutMs, ...(signal ? { signal } : {}), ...(onStdout ? { onStdout } : {}) });
          const result = interpret(exec, operation, requestId, DRIVER_VERSION, details, timeoutMs);
          return { ...result, requestId, argumentBytes: call.sealedBytes } as OperationOutcome<O>;
        });
      } finally {
        release();
      }
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

/** The resource IDs of the call, as its log lines name them. */
function logFields(ids: ResourceIds): Record<string, string> {
  return {
    ...(ids.namespaceId ? { namespace: ids.namespaceId } : {}),
    ...(ids.agentId ? { agent: ids.agentId } : {}),
    ...(ids.revisionId ? { revision: ids.revisionId } : {}),
  };
}

/** Raised before any host is contacted: a bad or oversized operation never leaves the process. */
function buildWithDetails<O extends OperationName>(
  operation: O,
  args: OperationArgs<O>,
  runtime: RuntimeSettings,
  helper: HelperArtifact,
  requestId: string,
  details: OperationDetails,
): HelperCall<O> {
  try {
    return buildHelperCall({ operation, args, runtime, requestId, helper: helper.bytes });
  } catch (error) {
    if (error instanceof ComputeError) throw new ComputeError(error.code, error.message, { ...details, ...error.details });
    throw error;
  }
}

interface OperationDetails {
  host: string;
  operation: string;
  requestId: string;
}

function interpret(exec: ExecuteResult, operation: OperationName, requestId: string, version: string, details: OperationDetails, timeoutMs: number) {
  const where = `${operation} on host "${details.host}"`;
  if (exec.aborted) throw new ComputeError('cancelled', `${where} was cancelled; a systemd job already submitted may still complete`, details);
  if (exec.timedOut) throw new ComputeError('timeout', `${where} exceeded the ${timeoutMs / 1000}-second operation bound`, details);
  const line = exec.stdoutTruncated ? undefined : readHelperOutput(exec.stdout).line;
  if (!line) {
    // The shell's "cannot execute" / "not found": the configured node is missing on the host.
    if (!exec.transportFailed && (exec.exitCode === 126 || exec.exitCode === 127)) {
      throw new ComputeError('host-requirement', `${where}: the configured nodePath cannot be run on the host (exit ${exec.exitCode})`, {
        ...details,
        key: 'drivers.compute.configuration.runtime.nodePath',
      });
    }
    if (exec.transportFailed) {
      const cause = exec.transportCause ?? 'unknown';
      throw new ComputeError('transport', `${where}: ssh could not run the helper (${cause}): ${CAUSE_ADVICE[cause]}`, { ...details, transportCause: cause });
    }
    throw new ComputeError('protocol', `${where}: the helper ended without a result line (exit ${String(exec.exitCode ?? exec.signal)})`, details);
  }
  if (line.protocolVersion !== PROTOCOL_VERSION || line.helperVersion !== version) {
    throw new ComputeError('protocol', `${where}: helper ${line.helperVersion} (protocol ${line.protocolVersion}) does not match controller ${version} (protocol ${PROTOCOL_VERSION})`, details);
  }
  if (line.operation !== operation || line.requestId !== requestId) {
    throw new ComputeError('protocol', `${where}: the result line answers a different request`, details);
  }
  if (!line.ok) {
    const path = line.error.path ? { path: line.error.path } : {};
    throw new ComputeError(line.error.code, `${where}: ${line.error.message}`, { ...details, ...path });
  }
  const parsed = OPERATIONS[operation].result.safeParse(line.result);
  if (!parsed.success) throw new ComputeError('protocol', `${where}: the helper's result does not match the protocol`, details);
  return { result: parsed.data, timings: line.timings };
}
