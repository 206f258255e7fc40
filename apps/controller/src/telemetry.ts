// Traces and metrics through @opentelemetry/api only: a no-op until the embedding process (OCC)
// registers an SDK. One span per driver method, a CLIENT span per helper invocation over SSH, and
// five instruments: operation duration, failures, host lock wait, gateway readiness wait and
// operations in flight. Names follow OpenTelemetry's semantic conventions where one exists:
// `server.address` and `server.port` name the machine, `error.type` the failure (the ComputeError
// code); the rest keep the `occ_ssh.` prefix. `occ_ssh.namespace_name` is the Namespace (the `hosts`
// key): several Namespaces may share one machine.
import { SpanKind, SpanStatusCode, metrics, trace, type Attributes, type Histogram, type Meter, type MeterProvider, type Span, type UpDownCounter, type Counter } from '@opentelemetry/api';
import { toComputeError, type ComputeError, type ResourceIds } from '@occ-ssh/protocol';
import { DRIVER_VERSION, PACKAGE_NAME } from './version.js';

interface Instruments {
  duration: Histogram;
  failures: Counter;
  lockWait: Histogram;
  readinessWait: Histogram;
  inFlight: UpDownCounter;
}

/**
 * Bucket boundaries in seconds. The SDK's default boundaries (0 to 10 000) were made for
 * milliseconds; these resolve a 5 ms lock wait as well as a 170 s operation bound.
 */
export const SECONDS_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 180];

/** The metrics API has no proxy provider: instruments are made from whichever provider is global now. */
let cached: { provider: MeterProvider; instruments: Instruments } | undefined;

function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (cached?.provider === provider) return cached.instruments;
  const meter: Meter = provider.getMeter(PACKAGE_NAME, DRIVER_VERSION);
  const made = {
    duration: meter.createHistogram('occ_ssh.operation.duration', { unit: 's', description: 'Duration of one helper operation on a host, by outcome', advice: seconds }),
    failures: meter.createCounter('occ_ssh.operation.failures', { unit: '{operation}', description: 'Helper operations that failed, by error type' }),
    lockWait: meter.createHistogram('occ_ssh.lock.wait', { unit: 's', description: 'Time a mutating helper operation waited for the host lock', advice: seconds }),
    readinessWait: meter.createHistogram('occ_ssh.readiness.wait', {
      unit: 's',
      description: 'Time an activation waited for the gateway to answer /readyz after its restart (0 when it was already serving)',
      advice: seconds,
    }),
    inFlight: meter.createUpDownCounter('occ_ssh.operations.in_flight', { unit: '{operation}', description: 'Helper operations running now, per host' }),
  };
  cached = { provider, instruments: made };
  return made;
}

const seconds = { explicitBucketBoundaries: [...SECONDS_BUCKETS] };

const tracer = () => trace.getTracer(PACKAGE_NAME, DRIVER_VERSION);

/** Resource IDs as span attributes. */
export function resourceAttributes(ids: ResourceIds): Attributes {
  const attributes: Attributes = {};
  if (ids.namespaceId) attributes['occ_ssh.namespace_id'] = ids.namespaceId;
  if (ids.agentId) attributes['occ_ssh.agent_id'] = ids.agentId;
  if (ids.revisionId) attributes['occ_ssh.revision_id'] = ids.revisionId;
  return attributes;
}

// Deprecated names, kept beside the conventional ones for one minor version (docs/versioning.md)
// and removed in the next: `occ_ssh.host` (`address:port`, now `server.address` and `server.port`),
// `occ_ssh.outcome` (`ok` or the code, now `error.type` on failures only) and the failure counter's
// `occ_ssh.code` (now `error.type`). Each is marked `deprecated` where it is set.

/**
 * Records a failure as the conventions say: status Error, `error.type`, and the exception event.
 * Security: the event carries the classified ComputeError, whose message names no secret; an
 * unclassified error becomes `internal` with a fixed message, so its text never leaves the process.
 */
function recordFailure(span: Span, failure: ComputeError): void {
  span.recordException({ name: failure.name, code: failure.code, message: failure.message, ...(failure.stack ? { stack: failure.stack } : {}) });
  span.setAttributes({ 'error.type': failure.code, 'occ_ssh.failure': failure.failure, 'occ_ssh.outcome': failure.code /* deprecated */ });
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.code });
}

/** Success leaves the status Unset: instrumentation libraries must not set Ok. */
function endWith(span: Span, error: unknown): void {
  if (error === undefined) {
    span.setAttribute('occ_ssh.outcome', 'ok'); // deprecated
  } else {
    const failure = toComputeError(error);
    recordFailure(span, failure);
    if (failure.details.requestId) span.setAttribute('occ_ssh.request_id', failure.details.requestId);
  }
  span.end();
}

/** A span around one driver method (OCC's call), parent of its helper invocations. */
export async function inMethodSpan<T>(method: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(`occ_ssh ${method}`, { kind: SpanKind.INTERNAL, attributes: { 'occ_ssh.method': method, ...attributes } }, async (span) => {
    try {
      const value = await work();
      // Namespace results report failure in the result, not by throwing: `error.type` is then the
      // verdict, and the helper span below carries the code.
      const failure = (value as { failure?: unknown } | undefined)?.failure;
      if (failure === 'permanent' || failure === 'retryable') {
        span.setAttributes({ 'error.type': failure, 'occ_ssh.failure': failure, 'occ_ssh.outcome': 'failed' /* deprecated */ });
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
        span.end();
      } else {
        endWith(span, undefined);
      }
      return value;
    } catch (error) {
      endWith(span, error);
      throw error;
    }
  });
}

export interface HelperSpan {
  /** The machine the SSH client connects to. */
  host: { address: string; port: number };
  /** The Namespace name: the configuration's `hosts` key. */
  namespace: string;
  operation: string;
  requestId: string;
  attributes: Attributes;
}

interface HelperCallTimings {
  lockWaitMs?: number | undefined;
  lockHoldMs?: number | undefined;
}

/** What a helper call returns that telemetry reads: the helper's timings, and an activation's readiness wait. */
interface HelperCallOutcome {
  timings?: HelperCallTimings;
  result?: unknown;
}

/** Wraps one helper invocation: the observer seam the driver's dependencies carry. */
export type HelperTracer = <T extends HelperCallOutcome>(call: HelperSpan, work: () => Promise<T>) => Promise<T>;

/** The machine a host target names, as `address:port` (`[address]:port` for an IPv6 literal). */
export function machineOf(host: { address: string; port: number }): string {
  return host.address.includes(':') ? `[${host.address}]:${host.port}` : `${host.address}:${host.port}`;
}

/** The machine as the conventions name a server: `server.address` (no brackets) and `server.port`. */
function serverOf(call: HelperSpan): Attributes {
  return { 'server.address': call.host.address, 'server.port': call.host.port, 'occ_ssh.host': machineOf(call.host) /* deprecated */ };
}

/** A CLIENT span and the metrics of one helper invocation on one host. */
export async function inHelperSpan<T extends HelperCallOutcome>(call: HelperSpan, work: () => Promise<T>): Promise<T> {
  const where = { ...serverOf(call), 'occ_ssh.namespace_name': call.namespace };
  const base = { ...where, 'occ_ssh.operation': call.operation };
  const { duration, failures, lockWait, readinessWait, inFlight } = instruments();
  const started = performance.now();
  inFlight.add(1, where);
  const options = { kind: SpanKind.CLIENT, attributes: { ...base, 'occ_ssh.request_id': call.requestId, ...call.attributes } };
  return tracer().startActiveSpan(`occ_ssh.helper ${call.operation}`, options, async (span) => {
    try {
      const value = await work();
      const { lockWaitMs, lockHoldMs } = value.timings ?? {};
      if (lockWaitMs !== undefined) {
        span.setAttribute('occ_ssh.lock_wait_ms', lockWaitMs);
        lockWait.record(lockWaitMs / 1000, base);
      }
      if (lockHoldMs !== undefined) span.setAttribute('occ_ssh.lock_hold_ms', lockHoldMs);
      const readyMs = (value.result as { readyMs?: unknown } | undefined)?.readyMs;
      if (typeof readyMs === 'number') {
        span.setAttribute('occ_ssh.ready_ms', readyMs);
        readinessWait.record(readyMs / 1000, base);
      }
      duration.record((performance.now() - started) / 1000, { ...base, 'occ_ssh.outcome': 'ok' /* deprecated */ });
      endWith(span, undefined);
      return value;
    } catch (error) {
      const code = toComputeError(error).code;
      duration.record((performance.now() - started) / 1000, { ...base, 'error.type': code, 'occ_ssh.outcome': code /* deprecated */ });
      failures.add(1, { ...base, 'error.type': code, 'occ_ssh.code': code /* deprecated */ });
      endWith(span, error);
      throw error;
    } finally {
      inFlight.add(-1, where);
    }
  });
}

/** For some async methods of T, the resource IDs a call's span carries, read from that method's own typed arguments. */
export type TracedMethods<T> = { [M in keyof T]?: T[M] extends (...args: infer A) => Promise<unknown> ? (...args: A) => ResourceIds : never };

/** Wraps each method named in `methods` in a method span carrying the resource IDs of its arguments. */
export function traceMethods<T extends object>(target: T, methods: TracedMethods<T>): void {
  const object = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const [method, ids] of Object.entries(methods) as [string, (...args: unknown[]) => ResourceIds][]) {
    const original = object[method]!.bind(target);
    object[method] = (...args: unknown[]) => inMethodSpan(method, resourceAttributes(ids(...args)), () => original(...args));
  }
}
