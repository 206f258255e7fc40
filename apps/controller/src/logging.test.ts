// A library that stays quiet: only the logger it is given, else warnings and errors on stderr, and
// every line written inside a span joined to its trace.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { loadInstallationConfiguration } from './config/index.js';
import { SshComputeDriver } from './driver.js';
import { createLogger } from './logging.js';
import { SEED_INSTALLATION } from '../test/config-fixtures.js';
import { FAKE_HELPER, FakeExecutor, okLine } from '../test/fakes.js';

const run = promisify(execFile);

function memory() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines };
}

describe('the logger', () => {
  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider());
  });
  after(() => {
    trace.disable();
    context.disable();
  });

  it('without a logger, a driver writes nothing to stdout and only its warning to stderr, inside the call span', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'occ-ssh-quiet-'));
    try {
      const spanFile = path.join(dir, 'span.json');
      const env = { ...process.env };
      delete env.OCC_SSH_LOG_LEVEL;
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'test/quiet-driver.ts', spanFile], { cwd: path.join(import.meta.dirname, '..'), env });
      assert.equal(stdout, '', 'nothing on stdout: not on construction, not for the operation that succeeded');
      const lines = stderr
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const span = JSON.parse(readFileSync(spanFile, 'utf8')) as { traceId: string; spanId: string };
      assert.equal(lines.length, 1, stderr);
      const { time, pid, hostname, requestId, durationMs, ...line } = lines[0]!;
      assert.equal(typeof time, 'number');
      assert.equal(typeof pid, 'number');
      assert.equal(typeof hostname, 'string');
      assert.match(String(requestId), /^[0-9a-f-]{36}$/);
      assert.equal(typeof durationMs, 'number');
      assert.deepEqual(line, {
        level: 40,
        name: 'compute-ssh',
        host: '203.0.113.10:22',
        namespaceName: 'stable',
        operation: 'ensure-namespace',
        namespace: 'ns-2',
        code: 'ownership',
        failure: 'permanent',
        reason: 'ensure-namespace on host "stable": foreign Namespace marker',
        trace_id: span.traceId,
        span_id: span.spanId,
        trace_flags: '01',
        msg: 'operation failed',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the default level is warn, and OCC_SSH_LOG_LEVEL still raises it', () => {
    const saved = process.env.OCC_SSH_LOG_LEVEL;
    try {
      delete process.env.OCC_SSH_LOG_LEVEL;
      assert.equal(createLogger().level, 'warn');
      process.env.OCC_SSH_LOG_LEVEL = 'info';
      assert.equal(createLogger().level, 'info');
    } finally {
      if (saved === undefined) delete process.env.OCC_SSH_LOG_LEVEL;
      else process.env.OCC_SSH_LOG_LEVEL = saved;
    }
  });

  it('a line written inside a span carries its trace_id and span_id; one outside carries neither', () => {
    const { stream, lines } = memory();
    const logger = createLogger({ level: 'info' }, stream);
    const ids = trace.getTracer('test').startActiveSpan('outer', (span) => {
      logger.info('inside');
      span.end();
      return span.spanContext();
    });
    logger.info('outside');
    assert.equal(lines.length, 2);
    assert.deepEqual([lines[0]!.msg, lines[0]!.trace_id, lines[0]!.span_id, lines[0]!.trace_flags], ['inside', ids.traceId, ids.spanId, '01']);
    assert.match(ids.traceId, /^[0-9a-f]{32}$/);
    assert.deepEqual([lines[1]!.msg, 'trace_id' in lines[1]!, 'span_id' in lines[1]!], ['outside', false, false]);
  });

  it("an application's own mixin still runs beside the trace fields, and the redaction holds", () => {
    const { stream, lines } = memory();
    const logger = createLogger({ level: 'info', mixin: () => ({ tenant: 't-1' }) }, stream);
    trace.getTracer('test').startActiveSpan('outer', (span) => {
      logger.info({ password: 'hunter2' }, 'inside');
      span.end();
    });
    assert.deepEqual([lines[0]!.tenant, lines[0]!.password, typeof lines[0]!.trace_id], ['t-1', '[redacted]', 'string']);
  });

  it('constructing a driver logs nothing, even through a given logger at info', () => {
    const { stream, lines } = memory();
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope) }));
    new SshComputeDriver({ configuration: loadInstallationConfiguration({ text: SEED_INSTALLATION }), executor, helper: FAKE_HELPER, logger: createLogger({ level: 'info' }, stream) });
    assert.deepEqual(lines, []);
  });
});
