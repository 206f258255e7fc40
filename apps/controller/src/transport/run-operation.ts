// One helper invocation end to end: build the call, send it, parse the final line, classify the outcome.
import { randomUUID } from 'node:crypto';
import { ComputeError, OPERATIONS, PROTOCOL_VERSION, resourcesOf, type HelperTimings, type OperationArgs, type OperationName, type OperationResult, type RuntimeSettings } from '@occ-ssh/protocol';
import { buildHelperCall, heartbeatReader, readHelperOutput, type HelperArtifact, type HelperCall } from '@occ-ssh/helper-call';
import type { CommandExecutor, ExecuteResult, HostTarget } from './executor.js';
import { inHelperSpan, resourceAttributes, type HelperTracer } from '../telemetry.js';
import { CAUSE_ADVICE } from './failure-cause.js';

/** The transport bound of one operation; the helper stops itself at 170 s. */
export const OPERATION_TIMEOUT_MS = 180_000;

export interface OperationRequest<O extends OperationName> {
  operation: O;
  args: OperationArgs<O>;
  host: HostTarget;
  runtime: RuntimeSettings;
  signal?: AbortSignal;
  /** Made by the caller when its log lines must carry it from the start; a new one otherwise. */
  requestId?: string;
  /** Called with each heartbeat the helper prints (one per change it begins, one a second while it waits). */
  onHeartbeat?: (seq: number) => void;
}

export interface OperationOutcome<O extends OperationName> {
  result: OperationResult<O>;
  timings: HelperTimings;
  requestId: string;
  argumentBytes: number;
}

export async function runOperation<O extends OperationName>(
  executor: CommandExecutor,
  helper: HelperArtifact,
  expectedVersion: string,
  request: OperationRequest<O>,
  timeoutMs = OPERATION_TIMEOUT_MS,
  /** The one tracer default: a span and the metrics of the call through @opentelemetry/api. */
  trace: HelperTracer = inHelperSpan,
): Promise<OperationOutcome<O>> {
  const requestId = request.requestId ?? randomUUID();
  const details = { host: request.host.name, operation: request.operation, requestId };
  const call = buildWithDetails(request, helper, requestId, details);
  if (request.signal?.aborted) throw new ComputeError('cancelled', `${request.operation} cancelled before it was sent`, details);
  const span = {
    host: request.host,
    namespace: request.host.name,
    operation: request.operation,
    requestId,
    attributes: resourceAttributes(resourcesOf(request.operation, request.args)),
  };
  return trace(span, async () => {
    const onStdout = request.onHeartbeat ? heartbeatReader(request.onHeartbeat) : undefined;
    const exec = await executor.execute({ host: request.host, call, timeoutMs, ...(request.signal ? { signal: request.signal } : {}), ...(onStdout ? { onStdout } : {}) });
    const result = interpret(exec, request.operation, requestId, expectedVersion, details, timeoutMs);
    return { ...result, requestId, argumentBytes: call.sealedBytes } as OperationOutcome<O>;
  });
}

/** Raised before any host is contacted: a bad or oversized operation never leaves the process. */
function buildWithDetails<O extends OperationName>(request: OperationRequest<O>, helper: HelperArtifact, requestId: string, details: OperationDetails): HelperCall<O> {
  try {
    return buildHelperCall({ operation: request.operation, args: request.args, runtime: request.runtime, requestId, helper: helper.bytes });
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
