// The release contract as the code makes it: what docs/versioning.md says a release may change only
// with a CHANGELOG entry. Telemetry and log names are read from what a run emits, not from a list
// kept beside the code, so the snapshot cannot drift from the behaviour.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { toJSONSchema } from 'zod';
import { MARKER_VERSION, agentMarker, namespaceMarker, revisionMarker, servedMarker, workspaceSetupMarker } from '@occ-ssh/markers';
import { ERROR_CODES, FAILURE_OF, OPERATION_EXAMPLES, OPERATIONS, PROTOCOL_VERSION, envelope, heartbeatLine, logEntriesLine, resultLine, type OperationName } from '@occ-ssh/protocol';
import { configurationSchema } from '../src/package-entry.js';
import { SshComputeDriver, TRACED_METHODS } from '../src/driver.js';
import { SECONDS_BUCKETS } from '../src/telemetry.js';
import { TRANSPORT_CAUSES } from '../src/transport/failure-cause.js';
import { loadInstallationConfiguration } from '../src/config/index.js';
import { SEED_INSTALLATION } from './config-fixtures.js';
import { FAKE_HELPER, FakeExecutor, NAMESPACE, failureLine, okLine } from './fakes.js';
import { createLogger } from '../src/logging.js';

export const CONTRACT_FILE = new URL('../../../docs/api/contract.json', import.meta.url);
export const CHANGELOG_FILE = new URL('../../../CHANGELOG.md', import.meta.url);

/** The first 12 hex digits of the SHA-256 of the snapshot's compact JSON: what a CHANGELOG entry names. */
export const contractDigest = (contract: unknown) => createHash('sha256').update(JSON.stringify(contract)).digest('hex').slice(0, 12);

/** Span attribute keys, metric names, units and attribute keys, and log line fields, from operations that succeed and fail. */
async function emitted() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  const spans = new InMemorySpanExporter();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  // The driver's own logger, so the fields it adds (the trace IDs inside a span) are in the contract.
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ level: 'debug' }, stream);
  const text = () => chunks.join('');
  const fail = new Set<OperationName>(['ensure-namespace']);
  const executor = new FakeExecutor((envelope) => (fail.has(envelope.operation) ? { stdout: failureLine(envelope, 'ownership', 'foreign marker'), exitCode: 1 } : { stdout: okLine(envelope) }));
  const driver = new SshComputeDriver({ configuration: loadInstallationConfiguration({ text: SEED_INSTALLATION }), executor, helper: FAKE_HELPER, logger });
  try {
    await driver.ensureNamespace(NAMESPACE);
    fail.clear();
    await driver.ensureNamespace(NAMESPACE);
    const example = OPERATION_EXAMPLES['activate-revision']();
    const { fakeRunner } = await import('./fakes.js');
    await fakeRunner(new FakeExecutor((envelope) => ({ stdout: okLine(envelope, example.result) }))).run('stable', 'activate-revision', example.args);
    await reader.forceFlush();
  } finally {
    await driver.close();
    metrics.disable();
    trace.disable();
    context.disable();
  }
  const spanAttributes = [...new Set(spans.getFinishedSpans().flatMap((span) => Object.keys(span.attributes)))].sort();
  const instruments = (exporter.getMetrics().at(-1)?.scopeMetrics ?? []).flatMap((scope) => scope.metrics);
  const metricNames = Object.fromEntries(
    instruments
      .map((m) => [m.descriptor.name, { unit: m.descriptor.unit, attributes: [...new Set(m.dataPoints.flatMap((p) => Object.keys(p.attributes)))].sort() }] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  const lines = text()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const fields = (msg: string) =>
    [...new Set(lines.filter((line) => line.msg === msg).flatMap((line) => Object.keys(line)))].filter((key) => !['level', 'time', 'pid', 'hostname'].includes(key)).sort();
  return {
    spanAttributes,
    metrics: metricNames,
    histogramBuckets: SECONDS_BUCKETS,
    logLines: { 'operation succeeded': fields('operation succeeded'), 'operation failed': fields('operation failed') },
  };
}

/**
 * The JSON Schema of each shape, digested: the wire's (every envelope, result and line) and the
 * markers'. A shape that changes while its version stays fails the contract test, since an older
 * helper or controller reads these with strict schemas (docs/versioning.md).
 */
const shapeDigest = (schemas: readonly unknown[]) =>
  createHash('sha256')
    .update(JSON.stringify(schemas.map((schema) => toJSONSchema(schema as Parameters<typeof toJSONSchema>[0], { unrepresentable: 'any', io: 'input' }))))
    .digest('hex')
    .slice(0, 12);
const WIRE_SHAPES = [envelope, heartbeatLine, logEntriesLine, resultLine, ...Object.values(OPERATIONS).map((operation) => operation.result)];
const MARKER_SHAPES = [namespaceMarker, agentMarker, revisionMarker, servedMarker, workspaceSetupMarker];

/** The contract snapshot, as pretty JSON with a final newline. */
export async function releaseContract(): Promise<string> {
  const engines = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: unknown }).engines;
  const contract = {
    engines,
    protocolVersion: PROTOCOL_VERSION,
    wireShapes: shapeDigest(WIRE_SHAPES),
    markerVersion: MARKER_VERSION,
    markerShapes: shapeDigest(MARKER_SHAPES),
    errorCodes: Object.fromEntries(ERROR_CODES.map((code) => [code, FAILURE_OF[code]])),
    transportCauses: TRANSPORT_CAUSES,
    spans: [...TRACED_METHODS.map((method) => `occ_ssh ${method}`), ...Object.keys(OPERATIONS).map((operation) => `occ_ssh.helper ${operation}`)],
    ...(await emitted()),
    configuration: configurationSchema,
  };
  return `${JSON.stringify(contract, null, 2)}\n`;
}
