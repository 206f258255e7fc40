// Traces and metrics as an embedding process sees them once it registers the OpenTelemetry SDK.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ComputeError, OPERATIONS } from '@occ-ssh/protocol';
import { loadInstallationConfiguration } from './config/index.js';
import { SEED_INSTALLATION } from '../test/config-fixtures.js';
import { FAKE_HELPER, FakeExecutor, NAMESPACE, agentFor, failureLine, fakeRunner, okLine } from '../test/fakes.js';
import { memoryLogger } from '../test/hosts.js';
import { SshComputeDriver } from './driver.js';
import { SECONDS_BUCKETS, inMethodSpan, machineOf } from './telemetry.js';

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
    assert.equal(helper.attributes['occ_ssh.host'], '203.0.113.10:22', 'the machine, not the Namespace');
    assert.equal(helper.attributes['occ_ssh.namespace_name'], 'stable');
    assert.equal(helper.attributes['occ_ssh.namespace_id'], 'ns-1');
    assert.equal(helper.attributes['occ_ssh.outcome'], 'ok');
    assert.equal(helper.attributes['occ_ssh.lock_wait_ms'], 1);
    assert.equal(helper.attributes['occ_ssh.lock_hold_ms'], 5);
    assert.match(String(helper.attributes['occ_ssh.request_id']), /^[0-9a-f-]{36}$/);
    assert.equal(helper.attributes['occ_ssh.request_id'], executor.calls[0]!.envelope.requestId);

    const stop = byName.get('occ_ssh.helper stop-revision')!;
    assert.equal(stop.attributes['occ_ssh.outcome'], 'ownership');
    assert.equal(stop.attributes['occ_ssh.agent_id'], 'agent-1');
    assert.equal(stop.attributes['occ_ssh.revision_id'], 'rev-1');
    assert.equal(stop.status.code, 2);
    assert.equal(byName.get('occ_ssh stopRevision')!.attributes['occ_ssh.failure'], 'permanent');
    for (const span of finished) assert.doesNotMatch(JSON.stringify(span.attributes), /password|opaque-|document/);

    const durations = await metricPoints('occ_ssh.operation.duration');
    assert.deepEqual(durations.map((p) => [p.attributes['occ_ssh.operation'], p.attributes['occ_ssh.outcome'], (p.value as Histogram).count]).sort(), [
      ['ensure-namespace', 'ok', 1],
      ['stop-revision', 'ownership', 1],
    ]);
    const failures = await metricPoints('occ_ssh.operation.failures');
    assert.deepEqual(
      failures.map((p) => [p.attributes['occ_ssh.code'], p.value]),
      [['ownership', 1]],
    );
    const lock = await metricPoints('occ_ssh.lock.wait');
    assert.deepEqual(
      lock.map((p) => (p.value as Histogram).count),
      [1],
    );
    const inFlight = await metricPoints('occ_ssh.operations.in_flight');
    assert.deepEqual(
      inFlight.map((p) => [p.attributes['occ_ssh.host'], p.attributes['occ_ssh.namespace_name'], p.value]),
      [['203.0.113.10:22', 'stable', 0]],
    );
  });

  it('histograms in seconds declare second-sized buckets, and an activation records its readiness wait per machine', async () => {
    const { example } = OPERATIONS['activate-revision'];
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope, { ...example.result, readyMs: 1200 }) }));
    await fakeRunner(executor).run('stable', 'activate-revision', example.args);
    const readiness = await metricPoints('occ_ssh.readiness.wait');
    assert.equal(readiness.length, 1);
    assert.deepEqual(
      [readiness[0]!.attributes['occ_ssh.host'], readiness[0]!.attributes['occ_ssh.namespace_name'], readiness[0]!.attributes['occ_ssh.operation']],
      ['203.0.113.10:22', 'stable', 'activate-revision'],
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

  it("the Grafana dashboard's queries name only series and labels the Prometheus exporter makes of these metrics", async () => {
    // Every instrument has data by now: the tests above recorded each of them.
    await reader.forceFlush();
    const text = new PrometheusSerializer().serialize(exported.getMetrics().at(-1)! as Parameters<PrometheusSerializer['serialize']>[0]);
    const samples = text.split('\n').filter((line) => line.startsWith('occ_ssh_'));
    const series = new Set(samples.map((line) => line.slice(0, line.indexOf('{'))));
    const labels = new Set(samples.flatMap((line) => [...line.matchAll(/([a-z_]+)="/g)].map((match) => match[1]!)));
    const dashboard = JSON.parse(readFileSync(new URL('../../../docs/grafana/occ-ssh-dashboard.json', import.meta.url), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
    assert.ok(queries.length >= 4, 'latency, traffic, errors and saturation');
    for (const query of queries) {
      for (const [name] of query.matchAll(/occ_ssh_[a-z_]+(?=[{[])/g)) assert.ok(series.has(name), `${name} in ${query} is a series the exporter makes`);
      for (const [, list] of query.matchAll(/by \(([^)]*)\)/g))
        for (const label of list!.split(',').map((l) => l.trim())) assert.ok(label === 'le' || labels.has(label), `${label} in ${query} is a label`);
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
