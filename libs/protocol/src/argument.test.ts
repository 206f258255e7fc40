// The one base64 JSON argument: round trip, the size bound before sending, and every refusal on decode.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeArgument, encodeArgument, MAX_ARGUMENT_BYTES } from './argument.js';
import { type Envelope, makeEnvelope } from './envelope.js';
import { ComputeError } from './errors.js';
import { MAX_LAUNCH_ENV_BYTES, MAX_LAUNCH_ENV_ENTRIES } from './launch.js';
import { MAX_DOCUMENT_BYTES } from './operations/index.js';
import type { RuntimeSettings } from './runtime.js';
import { PROTOCOL_VERSION } from './version.js';
import { EXAMPLE_RUNTIME } from './operations/examples.js';

const RUNTIME: RuntimeSettings = EXAMPLE_RUNTIME;
const owner = { namespace: { id: 'ns-01HZX3', name: 'team-a' }, agent: { id: 'agent-7f3a' }, servicePrincipal: { id: 'sp-01' } };
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const toBase64 = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

function prepareEnvelope(document: string): Envelope {
  return makeEnvelope({
    operation: 'prepare-revision',
    args: {
      owner,
      revision: { id: 'rev-0001', number: 1 },
      harness: 'openclaw/embedded',
      configuration: { document, hash: sha256(document), auth: 'password' },
    },
    runtime: RUNTIME,
    configurationHash: 'b'.repeat(64),
    requestId: 'req-0001',
  });
}

const probe = makeEnvelope({ operation: 'probe', args: {}, runtime: RUNTIME, configurationHash: 'a'.repeat(64), requestId: 'req-0000' });

function assertConfigurationError(fn: () => unknown, message?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
    assert.equal(error.code, 'configuration');
    assert.equal(error.failure, 'permanent');
    assert.equal(error.permanent, true);
    assert.equal(error.retryable, false);
    if (message) assert.match(error.message, message);
    return true;
  });
}

describe('encodeArgument / decodeArgument round trip', () => {
  it('round-trips every kind of envelope', () => {
    const document = '{"gateway":{"auth":{"mode":"password"}},"note":"caf\u00e9 \u65e5\u672c \\"quoted\\""}\n';
    for (const value of [probe, prepareEnvelope(document)]) {
      const encoded = encodeArgument(value);
      assert.match(encoded, /^[A-Za-z0-9+/]+={0,2}$/);
      assert.deepEqual(decodeArgument(encoded), value);
    }
  });

  it('the encoding is standard base64 of the UTF-8 JSON text', () => {
    const encoded = encodeArgument(probe);
    assert.deepEqual(JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')), probe);
    assert.equal(Buffer.from(encoded, 'base64').toString('base64'), encoded);
  });

  it('encodeArgument refuses an invalid envelope as configuration, naming the operation', () => {
    const bad = { ...probe, args: { extra: true } } as unknown as Envelope;
    assertConfigurationError(() => encodeArgument(bad), /probe/);
    const badRuntime = { ...probe, runtime: { ...RUNTIME, nodePath: 'node' } } as Envelope;
    assertConfigurationError(() => encodeArgument(badRuntime));
  });
});

describe('the argument bound is enforced before anything is sent', () => {
  it('launch-environment entries alone cannot reach the bound (why the document is used below)', () => {
    // 32 entries and 8 KiB at most: far below the argument bound even after JSON and base64 growth.
    assert.ok(MAX_LAUNCH_ENV_ENTRIES * 4 + MAX_LAUNCH_ENV_BYTES * 2 < MAX_ARGUMENT_BYTES);
  });

  it('a schema-valid prepare-revision whose JSON escaping pushes it over MAX_ARGUMENT_BYTES is a permanent configuration error', () => {
    // A real JSON document: within MAX_DOCUMENT_BYTES as UTF-8, but every `"` doubles once
    // escaped inside the envelope's JSON, and base64 grows it by 4/3.
    const document = `{"tokens":[${Array.from({ length: 16_000 }, () => '""').join(',')}]}`;
    assert.ok(Buffer.byteLength(document) <= MAX_DOCUMENT_BYTES, 'the document itself is within its own bound');
    const value = prepareEnvelope(document);
    const wouldBe = toBase64(value).length;
    assert.ok(wouldBe > MAX_ARGUMENT_BYTES, `encoding is ${wouldBe} bytes`);
    assertConfigurationError(() => encodeArgument(value), /argument limit/);
    try {
      encodeArgument(value);
    } catch (error) {
      assert.ok(error instanceof ComputeError);
      assert.equal(error.details.operation, 'prepare-revision');
    }
  });

  it('a control-character document is refused the same way', () => {
    const document = '\u0001'.repeat(MAX_DOCUMENT_BYTES); // 1 byte each, 6 once escaped
    assertConfigurationError(() => encodeArgument(prepareEnvelope(document)), /argument limit/);
  });

  it('a document over MAX_DOCUMENT_BYTES is refused by the schema first', () => {
    const document = 'x'.repeat(MAX_DOCUMENT_BYTES + 1);
    assertConfigurationError(() => encodeArgument(prepareEnvelope(document)), /exceeds 49152 bytes/);
  });

  it('a plain document at MAX_DOCUMENT_BYTES still fits', () => {
    const document = 'x'.repeat(MAX_DOCUMENT_BYTES);
    const encoded = encodeArgument(prepareEnvelope(document));
    assert.ok(encoded.length <= MAX_ARGUMENT_BYTES);
    assert.equal((decodeArgument(encoded) as Extract<Envelope, { operation: 'prepare-revision' }>).args.configuration.document, document);
  });

  it('MAX_ARGUMENT_BYTES stays below the 128 KiB single-argument limit of Linux', () => {
    assert.equal(MAX_ARGUMENT_BYTES, 96 * 1024);
    assert.ok(MAX_ARGUMENT_BYTES < 128 * 1024);
  });
});

describe('decodeArgument refusals (all configuration)', () => {
  it('refuses a missing or non-string argument', () => {
    for (const value of [undefined, null, '', 42, {}, ['a']]) assertConfigurationError(() => decodeArgument(value));
  });

  it('refuses non-base64', () => {
    for (const value of ['not base64!', '@@@@', 'eyJ9\n', 'eyJ9 ', '\u00e9\u00e9\u00e9\u00e9']) {
      assertConfigurationError(() => decodeArgument(value), /base64/);
    }
  });

  it('refuses base64url and unpadded base64', () => {
    const encoded = toBase64({ ...probe, requestId: 'req-0000-\u00ff\u00fe' });
    const url = encoded.replace(/\+/g, '-').replace(/\//g, '_');
    const unpadded = encoded.replace(/=+$/, '');
    assert.notEqual(url, encoded, 'fixture must contain + or /');
    assert.notEqual(unpadded, encoded, 'fixture must end in padding');
    assertConfigurationError(() => decodeArgument(url), /base64/);
    assertConfigurationError(() => decodeArgument(unpadded), /base64/);
    assertConfigurationError(() => decodeArgument(toBase64(probe).slice(0, -1)), /base64/);
  });

  it('refuses non-canonical base64 (non-zero padding bits decode to the same bytes)', () => {
    const encoded = encodeArgument(probe);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const padding = encoded.endsWith('==') ? 2 : encoded.endsWith('=') ? 1 : 0;
    assert.ok(padding > 0, 'fixture must end in padding');
    const at = encoded.length - padding - 1;
    const tweaked = `${encoded.slice(0, at)}${alphabet[alphabet.indexOf(encoded[at] ?? '') + 1]}${encoded.slice(at + 1)}`;
    assert.notEqual(tweaked, encoded);
    assert.deepEqual(Buffer.from(tweaked, 'base64'), Buffer.from(encoded, 'base64'), 'same bytes, different text');
    assertConfigurationError(() => decodeArgument(tweaked), /base64/);
  });

  it('refuses base64 that is not JSON', () => {
    for (const text of ['not json', '{"a":', '\u0000']) {
      assertConfigurationError(() => decodeArgument(Buffer.from(text).toString('base64')), /not JSON/);
    }
  });

  it('refuses JSON that is not an envelope', () => {
    for (const value of [null, 1, 'probe', [], {}]) assertConfigurationError(() => decodeArgument(toBase64(value)), /invalid operation/);
  });

  it('refuses a wrong protocol version', () => {
    for (const protocolVersion of [0, PROTOCOL_VERSION + 1, String(PROTOCOL_VERSION)]) {
      assertConfigurationError(() => decodeArgument(toBase64({ ...probe, protocolVersion })), /invalid operation/);
    }
  });

  it('refuses an unknown operation', () => {
    assertConfigurationError(() => decodeArgument(toBase64({ ...probe, operation: 'exec' })), /invalid operation/);
    const { operation: _operation, ...noOperation } = probe;
    assertConfigurationError(() => decodeArgument(toBase64(noOperation)), /invalid operation/);
  });

  it('refuses an unknown key', () => {
    assertConfigurationError(() => decodeArgument(toBase64({ ...probe, shell: 'id' })), /invalid operation/);
  });

  it('refuses oversized input before decoding it', () => {
    const oversized = 'A'.repeat(MAX_ARGUMENT_BYTES + 4);
    assertConfigurationError(() => decodeArgument(oversized), /exceeds/);
    // Valid base64 of a valid-looking envelope would not help either.
    const padded = toBase64({ ...probe, requestId: 'x' }).padEnd(MAX_ARGUMENT_BYTES + 4, 'A');
    assertConfigurationError(() => decodeArgument(padded), /exceeds/);
  });
});
