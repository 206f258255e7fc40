// The shipped Grafana dashboard against a real Prometheus (Debian's package) holding the driver's
// metrics from real operations on a real test host: every panel's query, with the Namespace and
// machine variables substituted as Grafana would, must return series.
//
// The pipeline: the OpenTelemetry SDK's Prometheus exporter (npm) serves the metrics, Prometheus
// scrapes them. What users run is OTLP into an OpenTelemetry Collector or Prometheus 3, whose
// translation appends the unit (`_seconds`) as well as `_total` and `_` for `.`. Debian 12's
// Prometheus 2.42 has no OTLP receiver (2.47 and later do) and the SDK's exporter appends no unit,
// so the scrape appends it from each metric's own `# UNIT` line: that step, and nothing else, is
// the translation's that the exporter lacks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Writable } from 'node:stream';
import { SpanKind, context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { SshComputeDriver } from './driver.js';
import { createLogger } from './logging.js';
import { agentBinding, configFor, revisionOf } from '../test/hosts.js';
import { ensurePrometheus, startPrometheus, type RunningPrometheus } from '../test/prometheus.js';

/** The OTLP translation's unit suffixes (UCUM to Prometheus) for the units the driver declares; `{…}` adds none. */
const UNIT_SUFFIX: Record<string, string> = { s: 'seconds' };

/** Relabel rules that append each metric's unit suffix, read from the exposition's `# UNIT` lines. */
function unitSuffixRules(exposition: string): object[] {
  const rules: object[] = [];
  for (const [, name, unit] of exposition.matchAll(/^# UNIT (\S+) (\S+)$/gm)) {
    if (unit!.startsWith('{')) continue;
    const suffix = UNIT_SUFFIX[unit!];
    assert.ok(suffix, `unit ${unit} of ${name} has no suffix here yet: add the translation's suffix for it`);
    rules.push({ source_labels: ['__name__'], regex: `${name}(_bucket|_sum|_count)?`, target_label: '__name__', replacement: `${name}_${suffix}$1` });
  }
  return rules;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Dashboard {
  templating: { list: { name: string; query: string }[] };
  panels: { title: string; targets: { expr: string }[] }[];
}

describe('the Grafana dashboard on a real Prometheus with real operations', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  let exporter: PrometheusExporter;
  let server: Server;
  let prometheus: RunningPrometheus | undefined;
  const spans = new InMemorySpanExporter();
  const lines: Record<string, unknown>[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const binding = agentBinding('dash', 'stable');
  const rev1 = revisionOf(binding, 1, { fixtureGateway: { readyAfterMs: 300 } });
  const rev2 = revisionOf(binding, 2, { fixtureGateway: { readyAfterMs: 300 } });

  before(async () => {
    exporter = new PrometheusExporter({ preventServerStart: true });
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [exporter] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
    server = createServer((request, response) => exporter.getMetricsRequestHandler(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = await startTestHost({ name: 'cdash' });
    driver = new SshComputeDriver({ configuration: configFor({ stable: host }), logger: createLogger({ level: 'info' }, logStream), readinessTimeoutMs: 30_000 });
  });
  after(async () => {
    await prometheus?.[Symbol.asyncDispose]();
    await driver?.close();
    await host?.down();
    server?.close();
    metrics.disable();
    trace.disable();
    context.disable();
  });

  test('every panel returns series for the Namespace and machine the operations ran on', async () => {
    const binary = await ensurePrometheus();
    const target = `127.0.0.1:${(server.address() as { port: number }).port}`;
    const scrape = async () => (await fetch(`http://${target}/metrics`)).text();

    // A first deployment gives every histogram a sample (an instrument is exported from its first
    // one), and so its `# UNIT` line; Prometheus then scrapes before and after a second revision
    // and one helper failure, so the rates have two samples to differ by.
    let started = Date.now();
    assert.deepEqual(await driver.ensureNamespace(binding.namespace), { namespaceId: binding.namespace.id, namespaceReady: true });
    driver.bindAgent(binding);
    await driver.prepareRevision(rev1);
    await driver.activateRevision(rev1);
    console.log(`first deployment took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const rules = unitSuffixRules(await scrape());
    assert.equal(rules.length, 3, 'three histograms in seconds');
    prometheus = await startPrometheus(binary, target, rules);
    console.log(`prometheus ${prometheus.version} on ${prometheus.url} scraping ${target}`);
    await sleep(3_000);
    started = Date.now();
    // A unit file that names another Namespace: the helper refuses to touch it (ownership).
    const unitFile = `/etc/systemd/system/${(await driver.inventory('stable')).namespaces.flatMap((ns) => ns.agents)[0]!.unit}`;
    const original = await host.run(['cat', unitFile]);
    await host.run(['sed', '-i', '2s/.*/# X-OCC-Namespace-Id=someone-else/', unitFile]);
    await assert.rejects(driver.activateRevision(rev1), { code: 'ownership' });
    await host.run(['tee', unitFile], { input: original });
    await driver.prepareRevision(rev2);
    await driver.activateRevision(rev2);
    await driver.stopRevision(rev2);
    console.log(`second revision and the refusal took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await sleep(4_000);

    const dashboard = JSON.parse(readFileSync(new URL('../../../docs/grafana/occ-ssh-dashboard.json', import.meta.url), 'utf8')) as Dashboard;
    // The variables as Grafana's label_values() asks Prometheus for them.
    const variables = new Map<string, string>();
    for (const variable of dashboard.templating.list) {
      const match = /^label_values\((.+), (\w+)\)$/.exec(variable.query);
      assert.ok(match, `${variable.name}: ${variable.query} is a label_values() query`);
      const selector = match[1]!.replace(/\$(\w+)/g, (_, name: string) => variables.get(name) ?? assert.fail(`${variable.name} uses $${name} before it is set`));
      const values = await prometheus.labelValues(match[2]!, selector);
      console.log(`variable ${variable.name}: ${JSON.stringify(values)}`);
      assert.equal(values.length, 1, `${variable.name} offers the one value the run made`);
      variables.set(variable.name, values[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&'));
    }

    const empty: string[] = [];
    for (const panel of dashboard.panels)
      for (const { expr } of panel.targets) {
        const query = expr.replace(/\$(\w+)/g, (_, name: string) => variables.get(name) ?? assert.fail(`${panel.title}: no variable ${name}`));
        const series = await prometheus.query(query);
        console.log(`${panel.title}: ${series.length} series, ${JSON.stringify(series.map((s) => [s.metric, s.value[1]]))}`);
        if (series.length === 0) empty.push(`${panel.title}: ${query}`);
      }
    assert.deepEqual(empty, [], 'every panel query returns series');
    assert.deepEqual([...variables.keys()].sort(), ['host', 'namespace']);
    assert.equal(variables.get('namespace'), 'stable');
    assert.equal(variables.get('host'), host.address.replace(/\./g, '\\\\.'));
  });
  test("the refused activation's client span and its log line, joined by the trace", () => {
    const failed = spans.getFinishedSpans().find((span) => span.name === 'occ_ssh.helper activate-revision' && span.attributes['error.type'] === 'ownership')!;
    const method = spans.getFinishedSpans().find((span) => span.spanContext().spanId === failed.parentSpanContext?.spanId)!;
    const line = lines.find((entry) => entry.msg === 'operation failed' && entry.code === 'ownership')!;
    const shown = {
      name: failed.name,
      kind: SpanKind[failed.kind],
      scope: failed.instrumentationScope,
      status: failed.status,
      traceId: failed.spanContext().traceId,
      spanId: failed.spanContext().spanId,
      parent: `${method.name} ${method.spanContext().spanId}`,
      attributes: failed.attributes,
      events: failed.events.map((event) => ({ name: event.name, attributes: event.attributes })),
    };
    console.log(`span ${JSON.stringify(shown, null, 2)}`);
    console.log(`log line ${JSON.stringify(line, null, 2)}`);
    assert.deepEqual([failed.kind, failed.status.code, failed.attributes['server.address'], failed.attributes['server.port']], [SpanKind.CLIENT, 2, host.address, 22]);
    assert.deepEqual(
      failed.events.map((event) => [event.name, event.attributes?.['exception.type']]),
      [['exception', 'ownership']],
    );
    // The line is written after the helper span ends, inside the driver method's span.
    assert.deepEqual([line.trace_id, line.span_id, line.requestId], [failed.spanContext().traceId, method.spanContext().spanId, failed.attributes['occ_ssh.request_id']]);
  });
});
