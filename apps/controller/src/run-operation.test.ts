// OperationRunner: how one helper invocation's outcome is classified, with a scripted executor.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { canonicalHash } from '@occ-ssh/markers';
import { ComputeError, ERROR_CODES, FAILURE_OF, MAX_ARGUMENT_BYTES, MAX_DOCUMENT_BYTES, PROTOCOL_VERSION, type OperationArgs, type OperationName } from '@occ-ssh/protocol';
import { FAKE_HELPER, FakeExecutor, HOST, RUNTIME, SAMPLE_RESULTS, failureLine, fakeRunner, heartbeat, okLine, type Responder } from '../test/fakes.js';
import type { HelperCall } from '@occ-ssh/helper-call';
import { OPERATION_TIMEOUT_MS } from './run-operation.js';

const SECRET = 'sk-secret-123';
const OWNER = { namespace: { id: 'ns-1', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } };
const TARGET = { owner: OWNER, revision: { id: 'rev-1', number: 1 } };

function run<O extends OperationName>(executor: FakeExecutor, operation: O, args: OperationArgs<O>, options: { signal?: AbortSignal; timeoutMs?: number } = {}) {
  return fakeRunner(executor, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }).run('stable', operation, args, options.signal);
}

const ensure = (executor: FakeExecutor, options?: { signal?: AbortSignal; timeoutMs?: number }) => run(executor, 'ensure-namespace', { namespace: { id: 'ns-1', name: 'stable' } }, options);

/** The ComputeError `promise` rejects with, after checking the common details. */
async function failure(promise: Promise<unknown>, operation = 'ensure-namespace'): Promise<ComputeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
    assert.equal(error.details.host, 'stable');
    assert.equal(error.details.operation, operation);
    return error;
  }
  assert.fail('expected the operation to fail');
}

function assertClean(error: ComputeError, ...secrets: string[]): void {
  const surfaced = `${error.message}\n${JSON.stringify(error.details)}`;
  for (const secret of [SECRET, ...secrets]) assert.ok(!surfaced.includes(secret), `"${secret}" surfaced in: ${surfaced}`);
}

describe('OperationRunner: success', () => {
  it('sends `<nodePath> - <base64 header>` naming the operation sealed on stdin ahead of the helper', async () => {
    const executor = new FakeExecutor();
    const outcome = await ensure(executor, { timeoutMs: 12_345 });
    assert.equal(executor.calls.length, 1);
    const [call] = executor.calls;
    assert.ok(call);
    assert.equal(call.command, `/usr/bin/node - ${call.argument}`);
    assert.deepEqual(call.request.call.argv, ['/usr/bin/node', '-', call.argument]);
    // The transport is handed the built call itself, not a string made from it.
    const sent = call.request.call as HelperCall;
    assert.equal(sent.operation, 'ensure-namespace');
    assert.equal(sent.header, call.argument);
    assert.deepEqual(sent.envelope, call.envelope);
    assert.match(call.argument, /^[A-Za-z0-9+/]+={0,2}$/);
    const header = JSON.parse(Buffer.from(call.argument, 'base64').toString('utf8'));
    assert.deepEqual(Object.keys(header).sort(), ['protocolVersion', 'sealed']);
    assert.equal(header.sealed.bytes, call.sealed.length);
    assert.deepEqual(call.envelope, {
      protocolVersion: PROTOCOL_VERSION,
      operation: 'ensure-namespace',
      args: { namespace: { id: 'ns-1', name: 'stable' } },
      runtime: RUNTIME,
      configurationHash: canonicalHash(RUNTIME),
      requestId: outcome.requestId,
    });
    assert.deepEqual(call.helper, FAKE_HELPER.bytes);
    assert.deepEqual(call.request.host, HOST);
    assert.equal(call.request.timeoutMs, 12_345);
    assert.equal(call.request.signal, undefined);
    assert.deepEqual(outcome.result, SAMPLE_RESULTS['ensure-namespace']);
    assert.deepEqual(outcome.timings, { totalMs: 7, lockWaitMs: 1, lockHoldMs: 5 });
    assert.equal(outcome.argumentBytes, call.sealed.length);
  });

  it('keeps document contents and launch values off the ssh command line', async () => {
    const executor = new FakeExecutor();
    const document = JSON.stringify({ gateway: { auth: { mode: 'password' } }, marker: SECRET });
    const configuration = { document, hash: createHash('sha256').update(document).digest('hex'), auth: 'password' as const };
    await run(executor, 'prepare-revision', { ...TARGET, harness: 'openclaw/embedded', configuration });
    const [call] = executor.calls;
    assert.ok(call);
    assert.ok(call.command.length < 200, `${call.command.length} bytes`);
    assert.ok(!Buffer.from(call.argument, 'base64').toString('utf8').includes('sk-secret'));
    // The document still reaches the helper: inside the sealed text on stdin.
    assert.ok(Buffer.from(call.sealed, 'base64').toString('utf8').includes('sk-secret'));
    assert.ok(call.request.call.stdin.includes(Buffer.from(call.sealed)));
  });

  it('uses a fresh request ID per call and the 180-second bound by default', async () => {
    const executor = new FakeExecutor();
    const a = await ensure(executor);
    const b = await ensure(executor);
    assert.notEqual(a.requestId, b.requestId);
    assert.match(a.requestId, /^[A-Za-z0-9-]{1,64}$/);
    assert.equal(OPERATION_TIMEOUT_MS, 180_000);
    assert.equal(executor.calls[0]?.request.timeoutMs, OPERATION_TIMEOUT_MS);
  });

  it('passes the caller signal on to the executor', async () => {
    const executor = new FakeExecutor();
    const controller = new AbortController();
    await ensure(executor, { signal: controller.signal });
    assert.equal(executor.calls[0]?.request.signal, controller.signal);
  });

  it('ignores heartbeat lines and garbage before the result line', async () => {
    const executor = new FakeExecutor((envelope) => ({ stdout: `${heartbeat(0)}${heartbeat(1)}starting ${SECRET}\n${heartbeat(2)}${okLine(envelope)}\n` }));
    const outcome = await ensure(executor);
    assert.deepEqual(outcome.result, { created: true });
  });

  it('accepts a success even when ssh itself exits non-zero after the helper answered', async () => {
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope), exitCode: 255, transportFailed: true }));
    assert.deepEqual((await ensure(executor)).result, { created: true });
  });
});

describe('OperationRunner: helper failures', () => {
  it('maps each failure line to its code and the verdict FAILURE_OF gives it', async () => {
    for (const code of ERROR_CODES) {
      const executor = new FakeExecutor((envelope) => ({ stdout: `${heartbeat(0)}${failureLine(envelope, code, `helper says ${code}`)}`, exitCode: 1 }));
      const error = await failure(ensure(executor));
      assert.equal(error.code, code);
      assert.equal(error.failure, FAILURE_OF[code], code);
      assert.match(error.message, new RegExp(`helper says ${code}`));
    }
  });

  it('keeps ownership and configuration permanent, host-command and not-ready retryable', async () => {
    const verdicts = { ownership: 'permanent', configuration: 'permanent', 'host-command': 'retryable', 'not-ready': 'retryable' } as const;
    for (const [code, verdict] of Object.entries(verdicts)) {
      const executor = new FakeExecutor((envelope) => ({ stdout: failureLine(envelope, code as keyof typeof verdicts, 'x'), exitCode: 1 }));
      const error = await failure(ensure(executor));
      assert.equal(error.failure, verdict, code);
      assert.equal(error.permanent, verdict === 'permanent');
    }
  });

  it('carries the helper path into the details', async () => {
    const path = '/var/lib/openclaw-enterprise/namespaces/abc/namespace.json';
    const executor = new FakeExecutor((envelope) => ({ stdout: failureLine(envelope, 'ownership', 'foreign Namespace marker', path), exitCode: 1 }));
    const error = await failure(ensure(executor));
    assert.deepEqual(error.details, { host: 'stable', operation: 'ensure-namespace', path, requestId: executor.calls[0]!.envelope.requestId });
    assert.match(error.details.requestId ?? '', /^[0-9a-f-]{36}$/);
  });
});

describe('OperationRunner: transport and protocol failures', () => {
  it('exit 255 without a result line is a retryable transport failure', async () => {
    const executor = new FakeExecutor(() => ({ exitCode: 255, transportFailed: true, stdout: '', stderrBytes: 120 }));
    const error = await failure(ensure(executor));
    assert.equal(error.code, 'transport');
    assert.equal(error.failure, 'retryable');
    assert.equal(error.details.transportCause, 'unknown');
  });

  it('a transport failure names its cause in the details and says what to check', async () => {
    const executor = new FakeExecutor(() => ({ exitCode: 255, transportFailed: true, transportCause: 'host-key', stdout: '', stderrBytes: 120 }));
    const error = await failure(ensure(executor));
    assert.equal(error.details.transportCause, 'host-key');
    assert.match(error.message, /could not run the helper \(host-key\): the host key is not the one in ssh\.knownHostsFile/);
  });

  it('no result line with another exit is a retryable protocol failure', async () => {
    for (const answer of [{ exitCode: 1 }, { exitCode: 0 }, { exitCode: null, signal: 'SIGKILL' as const }, { exitCode: 0, stdout: heartbeat(0) }]) {
      const executor = new FakeExecutor(() => answer);
      const error = await failure(ensure(executor));
      assert.equal(error.code, 'protocol');
      assert.equal(error.failure, 'retryable');
    }
  });

  it('refuses a result line from another helper or protocol version', async () => {
    for (const overrides of [{ helperVersion: '0.0.9' }, { protocolVersion: PROTOCOL_VERSION + 1 }]) {
      const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope, undefined, overrides) }));
      const error = await failure(ensure(executor));
      assert.equal(error.code, 'protocol');
      assert.equal(error.failure, 'retryable');
    }
  });

  it('refuses a result line for another request or operation', async () => {
    const cases: Responder[] = [
      (envelope) => ({ stdout: okLine(envelope, undefined, { requestId: 'another-request' }) }),
      (envelope) => ({ stdout: okLine({ ...envelope }, undefined, { requestId: undefined }) }),
      (envelope) => ({ stdout: okLine(envelope, { created: true }, { operation: 'delete-namespace' }) }),
      (envelope) => ({ stdout: failureLine({ operation: 'delete-namespace', requestId: envelope.requestId }, 'ownership', 'not yours') }),
    ];
    for (const responder of cases) {
      const error = await failure(ensure(new FakeExecutor(responder)));
      assert.equal(error.code, 'protocol');
    }
  });

  it('refuses a result that does not match the operation schema', async () => {
    for (const result of [{}, { created: 'yes' }, { created: true, extra: 1 }, null, SAMPLE_RESULTS['delete-namespace']]) {
      const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope, result) }));
      const error = await failure(ensure(executor));
      assert.equal(error.code, 'protocol');
      assert.equal(error.failure, 'retryable');
    }
  });

  it('refuses a malformed final line', async () => {
    for (const tail of ['{"type":"result"}\n', 'not json\n', `${heartbeat(9)}`]) {
      const executor = new FakeExecutor((envelope) => ({ stdout: `${okLine(envelope)}${tail}` }));
      assert.equal((await failure(ensure(executor))).code, 'protocol');
    }
  });

  it('truncated stdout is a protocol failure even if a result line survived', async () => {
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope), stdoutTruncated: true }));
    const error = await failure(ensure(executor));
    assert.equal(error.code, 'protocol');
    assert.equal(error.failure, 'retryable');
  });

  it('a timeout is a retryable timeout whatever stdout holds', async () => {
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope), timedOut: true, exitCode: null, signal: 'SIGTERM' }));
    const error = await failure(ensure(executor));
    assert.equal(error.code, 'timeout');
    assert.equal(error.failure, 'retryable');
  });

  it('the timeout message states the bound that was actually applied', async () => {
    const executor = new FakeExecutor(() => ({ timedOut: true, exitCode: null, signal: 'SIGTERM' }));
    const error = await failure(ensure(executor, { timeoutMs: 5_000 }));
    assert.equal(error.code, 'timeout');
    assert.match(error.message, /\b5-second\b/);
    assert.ok(!error.message.includes('180'), error.message);
  });

  it('an aborted invocation is cancelled, and a signal aborted before sending never reaches the executor', async () => {
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope), aborted: true, exitCode: null, signal: 'SIGTERM' }));
    const error = await failure(ensure(executor));
    assert.equal(error.code, 'cancelled');
    assert.equal(error.failure, 'retryable');

    const idle = new FakeExecutor();
    const controller = new AbortController();
    controller.abort();
    const early = await failure(ensure(idle, { signal: controller.signal }));
    assert.equal(early.code, 'cancelled');
    assert.equal(idle.calls.length, 0);
  });
});

describe('OperationRunner: refused before any host is contacted', () => {
  it('refuses an envelope whose argument would exceed MAX_ARGUMENT_BYTES as permanent configuration', async () => {
    // Under MAX_DOCUMENT_BYTES as text, but every `"` doubles once JSON-escaped into the envelope.
    const document = '"'.repeat(MAX_DOCUMENT_BYTES - 8);
    assert.ok(Buffer.byteLength(document) <= MAX_DOCUMENT_BYTES);
    const executor = new FakeExecutor();
    const error = await failure(
      run(executor, 'prepare-revision', { ...TARGET, harness: 'openclaw/embedded', configuration: { document, hash: 'a'.repeat(64), auth: 'password' } }),
      'prepare-revision',
    );
    assert.equal(error.code, 'configuration');
    assert.equal(error.failure, 'permanent');
    assert.match(error.message, new RegExp(`${MAX_ARGUMENT_BYTES}-byte argument limit`));
    assert.equal(executor.calls.length, 0);
  });

  it('refuses a document over MAX_DOCUMENT_BYTES as permanent configuration', async () => {
    const executor = new FakeExecutor();
    const error = await failure(
      run(executor, 'prepare-revision', { ...TARGET, harness: 'openclaw/embedded', configuration: { document: 'a'.repeat(MAX_DOCUMENT_BYTES + 1), hash: 'a'.repeat(64), auth: 'password' } }),
      'prepare-revision',
    );
    assert.equal(error.code, 'configuration');
    assert.equal(error.failure, 'permanent');
    assert.equal(executor.calls.length, 0);
  });

  it('refuses launch environments the protocol does not allow, without calling the executor', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`VAR_${i}`, `opaque-${'v'.repeat(200)}`]));
    for (const launchEnvironment of [tooMany, { HOME: 'opaque-x' }, { TOKEN: SECRET }]) {
      const executor = new FakeExecutor();
      const error = await failure(run(executor, 'activate-revision', { ...TARGET, configurationHash: 'b'.repeat(64), launchEnvironment, readinessTimeoutMs: 120_000 }), 'activate-revision');
      assert.equal(error.code, 'configuration');
      assert.equal(error.failure, 'permanent');
      assert.equal(executor.calls.length, 0);
      assertClean(error);
    }
  });
});

describe('OperationRunner: what errors may say', () => {
  it('never carries stderr (only its size reaches the result) or stdout garbage', async () => {
    const answers: Responder[] = [
      () => ({ exitCode: 255, transportFailed: true, stdout: `Permission denied ${SECRET}\n`, stderrBytes: 4096 }),
      () => ({ exitCode: 1, stdout: `${heartbeat(0)}TypeError: ${SECRET}\n    at foo\n`, stderrBytes: 900 }),
      (envelope) => ({ exitCode: 0, stdout: `${okLine(envelope)}${SECRET}\n` }),
      (envelope) => ({ exitCode: 0, stdout: `${SECRET}\n${okLine(envelope, { token: SECRET })}` }),
      (envelope) => ({ exitCode: 0, stdout: `${SECRET}\n${okLine(envelope)}`, stdoutTruncated: true }),
      () => ({ timedOut: true, stdout: `${SECRET}\n`, exitCode: null, signal: 'SIGTERM' }),
      () => ({ aborted: true, stdout: `${SECRET}\n`, exitCode: null, signal: 'SIGTERM' }),
    ];
    for (const responder of answers) {
      const error = await failure(ensure(new FakeExecutor(responder)));
      assertClean(error);
    }
  });
});

describe('OperationRunner: heartbeats', () => {
  it('reports each heartbeat line as it arrives, across chunk boundaries, and ignores other output', async () => {
    const seen: number[] = [];
    const executor = new FakeExecutor((envelope) => ({ stdout: okLine(envelope) }));
    const streaming = {
      execute: async (request: Parameters<FakeExecutor['execute']>[0]) => {
        const result = await executor.execute(request);
        const text = `${heartbeat(0)}${heartbeat(1)}noise\n${heartbeat(2)}${result.stdout}`;
        for (let i = 0; i < text.length; i += 7) request.onStdout?.(Buffer.from(text.slice(i, i + 7)));
        return result;
      },
    };
    // Told as a count: heartbeats 0, 1 and 2 are the first, second and third.
    await fakeRunner(streaming, { progress: (progress) => seen.push(progress.heartbeats) }).run('stable', 'ensure-namespace', { namespace: { id: 'ns-1', name: 'stable' } });
    assert.deepEqual(seen, [1, 2, 3]);
  });
});
