// Traces and metrics as an embedding process sees them once it registers the OpenTelemetry SDK.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { SpanKind, SpanStatusCode, context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ComputeError, OPERATION_EXAMPLES } from '@occ-ssh/protocol';
import { loadInstallationConfiguration } from './config/index.js';
import { SEED_INSTALLATION } from '../test/config-fixtures.js';
import { FAKE_HELPER, FakeExecutor, NAMESPACE, agentFor, failureLine, fakeRunner, okLine } from '../test/fakes.js';
import { memoryLogger } from '../test/hosts.js';
import { SshComputeDriver } from './driver.js';
import { SECONDS_BUCKETS, inMethodSpan, machineOf } from './telemetry.js';
import { DRIVER_VERSION, PACKAGE_NAME } from './version.js';

const OWNER = { namespace: { id: 'ns-1', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } };

describe('telemetry through @opentelemetry/api', () => {
  const spans = new InMemorySpanExporter();
  const exported = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: exported, exportIntervalMillis: 3_600_000 });
  const meters = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();

  before(() => {
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
    metrics.setGlobalMeterProvider(meters);
  });
  after(() => {
    trace.disable();
    metrics.disable();
    context.disable();
  });

  async function metricPoints(name: string): Promise<DataPoint<unknown>[]> {
    await reader.forceFlush();
    const all =
      exported
        .getMetrics()
        .at(-1)
        ?.scopeMetrics.flatMap((s) => s.metrics) ?? [];
    return all.find((m) => m.descriptor.name === name)?.dataPoints ?? [];
  }

  it('one span per driver method, a child span per helper call, and the four instruments', async () => {
    const executor = new FakeExecutor((envelope) =>
      envelope.operation === 'ensure-namespace'
        ? { stdout: okLine(envelope) }
        : { stdout: failureLine(envelope, 'ownership', 'foreign Agent marker', '/var/lib/openclaw-enterprise/x/agent.json'), exitCode: 1 },
    );
    const call = <O extends 'ensure-namespace' | 'stop-revision'>(operation: O, args: unknown) => fakeRunner(executor).run('stable', operation, args as never);

    await inMethodSpan('ensureNamespace', { 'occ_ssh.namespace_id': 'ns-1' }, () => call('ensure-namespace', { namespace: OWNER.namespace }));
    const failed = await inMethodSpan('stopRevision', {}, () => call('stop-revision', { owner: OWNER, revision: { id: 'rev-1', number: 1 } })).catch((e: unknown) => e);
    assert.ok(failed instanceof ComputeError);

    const finished = spans.getFinishedSpans();
    const byName = new Map(finished.map((s) => [s.name, s]));
    const method = byName.get('occ_ssh ensureNamespace')!;
    const helper = byName.get('occ_ssh.helper ensure-namespace')!;
    assert.equal(helper.parentSpanContext?.spanId, method.spanContext().spanId, 'the helper call is a child of the method');
    assert.deepEqual([helper.kind, method.kind], [SpanKind.CLIENT, SpanKind.INTERNAL], 'the SSH call is a client span');
    for (const span of [helper, method]) assert.deepEqual([span.instrumentationScope.name, span.instrumentationScope.version], [PACKAGE_NAME, DRIVER_VERSION]);
    assert.deepEqual([helper.status.code, method.status.code], [SpanStatusCode.UNSET, SpanStatusCode.UNSET], 'success leaves the status unset, never Ok');
    assert.deepEqual([helper.attributes['error.type'], helper.events], [undefined, []]);
    assert.deepEqual([helper.attributes['server.address'], helper.attributes['server.port']], ['203.0.113.10', 22], 'the machine, not the Namespace');
    assert.equal(helper.attributes['occ_ssh.host'], '203.0.113.10:22', 'the deprecated name, kept for one minor version');
    assert.equal(helper.attributes['occ_ssh.namespace_name'], 'stable');
    assert.equal(helper.attributes['occ_ssh.namespace_id'], 'ns-1');
    assert.equal(helper.attributes['occ_ssh.outcome'], 'ok');
    assert.equal(helper.attributes['occ_ssh.lock_wait_ms'], 1);
    assert.equal(helper.attributes['occ_ssh.lock_hold_ms'], 5);
    assert.match(String(helper.attributes['occ_ssh.request_id']), /^[0-9a-f-]{36}$/);
    assert.equal(helper.attributes['occ_ssh.request_id'], executor.calls[0]!.envelope.requestId);

    const stop = byName.get('occ_ssh.helper stop-revision')!;
    assert.equal(stop.attributes['error.type'], 'ownership');
    assert.equal(stop.attributes['occ_ssh.outcome'], 'ownership', 'the deprecated name, kept for one minor version');
    assert.deepEqual(
      stop.events.map((event) => [event.name, event.attributes?.['exception.type'], event.attributes?.['exception.message']]),
      [['exception', 'ownership', 'stop-revision on host "stable": foreign Agent marker']],
    );
    assert.equal(byName.get('occ_ssh stopRevision')!.attributes['error.type'], 'ownership');
    assert.equal(stop.attributes['occ_ssh.agent_id'], 'agent-1');
    assert.equal(stop.attributes['occ_ssh.revision_id'], 'rev-1');
    assert.equal(stop.status.code, 2);
    assert.equal(byName.get('occ_ssh stopRevision')!.attributes['occ_ssh.failure'], 'permanent');
    for (const span of finished) assert.doesNotMatch(JSON.stringify(span.attributes), /password|opaque-|document/);

    const durations = await metricPoints('occ_ssh.operation.duration');
    assert.deepEqual(durations.map((p) => [p.attributes['occ_ssh.operation'], p.attributes['error.type'], p.attributes['occ_ssh.outcome'], (p.value as Histogram).count]).sort(), [
      ['ensure-namespace', undefined, 'ok', 1],
      ['stop-revision', 'ownership', 'ownership', 1],
    ]);
    assert.deepEqual([durations[0]!.attributes['server.address'], durations[0]!.attributes['server.port'], durations[0]!.attributes['occ_ssh.namespace_name']], ['203.0.113.10', 22, 'stable']);
    const failures = await metricPoints('occ_ssh.operation.failures');
    assert.deepEqual(
      failures.map((p) => [p.attributes['error.type'], p.attributes['occ_ssh.code'], p.value]),
      [['ownership', 'ownership', 1]],
    );
    const lock = await metricPoints('occ_ssh.lock.wait');
    assert.deepEqual(
      lock.map((p) => (p.value as Histogram).count),
      [1],
    );
    const inFlight = await metricPoints('occ_ssh.operations.in_flight');
    assert.deepEqual(
      inFlight.map((p) => [p.attributes['server.address'], p.attributes['server.port'], p.attributes['occ_ssh.host'], p.attributes['occ_ssh.namespace_name'], p.value]),
      [['203.0.113.10', 22, '203.0.113.10:22', 'stable', 0]],
    );
  });

  it('histograms in seconds declare second-sized buckets, and an activation records its readiness wait per machine', async () => {
    const example = OPERATION_EXAMPLES['activate-revision']();
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope, { ...example.result, readyMs: 1200 }) }));
    await fakeRunner(executor).run('stable', 'activate-revision', example.args);
    const readiness = await metricPoints('occ_ssh.readiness.wait');
    assert.equal(readiness.length, 1);
    assert.deepEqual(
      [readiness[0]!.attributes['server.address'], readiness[0]!.attributes['occ_ssh.namespace_name'], readiness[0]!.attributes['occ_ssh.operation']],
      ['203.0.113.10', 'stable', 'activate-revision'],
    );
    const histogram = readiness[0]!.value as Histogram;
    assert.equal(histogram.sum, 1.2);
    // 1.2 s falls between the 1 s and 2.5 s boundaries, not into the SDK default's first bucket.
    assert.deepEqual(histogram.buckets.boundaries, SECONDS_BUCKETS);
    assert.equal(histogram.buckets.counts[SECONDS_BUCKETS.indexOf(2.5)], 1);
    for (const name of ['occ_ssh.operation.duration', 'occ_ssh.lock.wait']) {
      for (const point of await metricPoints(name)) assert.deepEqual((point.value as Histogram).buckets.boundaries, SECONDS_BUCKETS, name);
    }
    // The 1 ms lock wait the fake helper reports lands in the first bucket (<= 5 ms).
    const lock = (await metricPoints('occ_ssh.lock.wait')).find((p) => p.attributes['occ_ssh.operation'] === 'activate-revision')!.value as Histogram;
    assert.equal(lock.buckets.counts[0], 1);
  });

  it('every instrument declares its unit as the conventions spell it', async () => {
    await reader.forceFlush();
    const all = exported
      .getMetrics()
      .at(-1)!
      .scopeMetrics.flatMap((scope) => scope.metrics.map((m) => [scope.scope.name, scope.scope.version, m.descriptor.name, m.descriptor.unit]))
      .sort();
    assert.deepEqual(all, [
      [PACKAGE_NAME, DRIVER_VERSION, 'occ_ssh.lock.wait', 's'],
      [PACKAGE_NAME, DRIVER_VERSION, 'occ_ssh.operation.duration', 's'],
      [PACKAGE_NAME, DRIVER_VERSION, 'occ_ssh.operation.failures', '{operation}'],
      [PACKAGE_NAME, DRIVER_VERSION, 'occ_ssh.operations.in_flight', '{operation}'],
      [PACKAGE_NAME, DRIVER_VERSION, 'occ_ssh.readiness.wait', 's'],
    ]);
  });

  it("the Grafana dashboard's queries name only series and labels an OTLP pipeline makes of these metrics", async () => {
    // Every instrument has data by now: the tests above recorded each of them. The SDK's exporter
    // sanitizes names and adds `_total`; the OTLP translation also appends the unit (`s`: `_seconds`).
    await reader.forceFlush();
    const text = new PrometheusSerializer().serialize(exported.getMetrics().at(-1)! as Parameters<PrometheusSerializer['serialize']>[0]);
    const seconds = [...text.matchAll(/^# UNIT (\S+) s$/gm)].map((match) => match[1]!);
    const samples = text.split('\n').filter((line) => line.startsWith('occ_ssh_'));
    const translated = (name: string) => seconds.reduce((out, base) => out.replace(new RegExp(`^${base}(_bucket|_sum|_count)?$`), `${base}_seconds$1`), name);
    const series = new Set(samples.map((line) => translated(line.slice(0, line.indexOf('{')))));
    assert.ok(series.has('occ_ssh_operation_duration_seconds_bucket') && series.has('occ_ssh_operation_failures_total'), [...series].join(' '));
    const labels = new Set(samples.flatMap((line) => [...line.matchAll(/([a-z_]+)="/g)].map((match) => match[1]!)));
    const dashboard = JSON.parse(readFileSync(new URL('../../../docs/grafana/occ-ssh-dashboard.json', import.meta.url), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
      templating: { list: { name: string; query: string }[] };
    };
    const queries = [...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)), ...dashboard.templating.list.map((variable) => variable.query)];
    assert.ok(queries.length >= 4, 'latency, traffic, errors and saturation');
    assert.deepEqual(
      dashboard.templating.list.map((variable) => variable.name),
      ['namespace', 'host'],
    );
    for (const query of queries) {
      assert.doesNotMatch(query, /occ_ssh_host|occ_ssh_outcome|occ_ssh_code/, 'no deprecated label');
      for (const [name] of query.matchAll(/occ_ssh_[a-z_]+(?=[{[])/g)) assert.ok(series.has(name), `${name} in ${query} is a series the pipeline makes`);
      for (const [, list] of query.matchAll(/by \(([^)]*)\)/g))
        for (const label of list!.split(',').map((l) => l.trim())) assert.ok(label === 'le' || labels.has(label), `${label} in ${query} is a label`);
      for (const [label] of query.matchAll(/[a-z_]+(?==~)/g)) assert.ok(labels.has(label), `${label} in ${query} is a label`);
    }
  });

  it('the machine attribute is address:port, bracketed for an IPv6 literal', () => {
    assert.equal(machineOf({ address: '203.0.113.10', port: 2222 }), '203.0.113.10:2222');
    assert.equal(machineOf({ address: 'gw.example.net', port: 22 }), 'gw.example.net:22');
    assert.equal(machineOf({ address: '2001:db8::5', port: 22 }), '[2001:db8::5]:22');
  });

  it('the driver spans each OCC call with its resources, and a namespace result that failed is an error', async () => {
    spans.reset();
    const executor = new FakeExecutor((envelope) => ({
      stdout: failureLine(envelope, 'ownership', 'foreign Namespace marker', '/var/lib/openclaw-enterprise/namespaces/x/namespace.json'),
      exitCode: 1,
    }));
    const driver = new SshComputeDriver({ configuration: loadInstallationConfiguration({ text: SEED_INSTALLATION }), executor, helper: FAKE_HELPER, logger: memoryLogger().logger });
    const result = await driver.ensureNamespace({ ...NAMESPACE, id: 'ns-9' });
    assert.equal(result.namespaceReady, false);
    const method = spans.getFinishedSpans().find((s) => s.name === 'occ_ssh ensureNamespace')!;
    assert.equal(method.attributes['occ_ssh.namespace_id'], 'ns-9');
    assert.equal(method.attributes['occ_ssh.failure'], 'permanent');
    assert.equal(method.status.code, 2);
    const helper = spans.getFinishedSpans().find((s) => s.name === 'occ_ssh.helper ensure-namespace')!;
    assert.equal(helper.parentSpanContext?.spanId, method.spanContext().spanId);
  });

  it("Agent deletion is spanned with the binding's Namespace and Agent, its helper call as a child", async () => {
    spans.reset();
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope) }));
    const driver = new SshComputeDriver({ configuration: loadInstallationConfiguration({ text: SEED_INSTALLATION }), executor, helper: FAKE_HELPER, logger: memoryLogger().logger });
    await driver.deleteAgentRuntimeCredentials({ namespace: NAMESPACE, agent: agentFor() });
    const method = spans.getFinishedSpans().find((s) => s.name === 'occ_ssh deleteAgentRuntimeCredentials')!;
    assert.equal(method.attributes['occ_ssh.namespace_id'], 'ns-1');
    assert.equal(method.attributes['occ_ssh.agent_id'], 'agent-1');
    const helper = spans.getFinishedSpans().find((s) => s.name === 'occ_ssh.helper delete-agent')!;
    assert.equal(helper.parentSpanContext?.spanId, method.spanContext().spanId);
  });
});
