// Run as its own process by logging.test.ts: a driver built without a logger, with an SDK's tracer
// registered, does one operation that succeeds and one that fails. The process's stdout and stderr
// are what an embedding application would see; the failed call's method span is written to argv[2].
import { writeFileSync } from 'node:fs';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { loadInstallationConfiguration } from '../src/config/index.js';
import { SshComputeDriver } from '../src/driver.js';
import { SEED_INSTALLATION } from './config-fixtures.js';
import { FAKE_HELPER, FakeExecutor, NAMESPACE, failureLine, okLine } from './fakes.js';

const spans = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));

let calls = 0;
const executor = new FakeExecutor((envelope) =>
  calls++ === 0 ? { stdout: okLine(envelope) } : { stdout: failureLine(envelope, 'ownership', 'foreign Namespace marker', '/var/lib/openclaw-enterprise/namespaces/x/namespace.json'), exitCode: 1 },
);
const driver = new SshComputeDriver({ configuration: loadInstallationConfiguration({ text: SEED_INSTALLATION }), executor, helper: FAKE_HELPER });
await driver.ensureNamespace(NAMESPACE);
await driver.ensureNamespace({ ...NAMESPACE, id: 'ns-2' });
const failed = spans.getFinishedSpans().filter((span) => span.name === 'occ_ssh ensureNamespace')[1]!;
writeFileSync(process.argv[2]!, JSON.stringify({ traceId: failed.spanContext().traceId, spanId: failed.spanContext().spanId }));
