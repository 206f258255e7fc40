// buildHelperCall: the exact argv, header, stdin and envelope of one call, with no host.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { canonicalHash } from '@occ-ssh/markers';
import { ComputeError, EXAMPLE_RUNTIME, MAX_ARGUMENT_BYTES, MAX_DOCUMENT_BYTES, PROTOCOL_VERSION, decodeArgument, type RuntimeSettings } from '@occ-ssh/protocol';
import { SEALED_KEY, splitHelperInput } from './input.js';
import { openSealed } from './sealed.js';
import { buildHelperCall } from './call.js';
import { remoteCommand } from '@occ-ssh/ssh-client';

const RUNTIME: RuntimeSettings = EXAMPLE_RUNTIME;
const HELPER = Buffer.from('/* helper */');
const NAMESPACE = { namespace: { id: 'ns-1', name: 'stable' } };
const build = (runtime = RUNTIME) => buildHelperCall({ operation: 'ensure-namespace', args: NAMESPACE, runtime, requestId: 'req-1', helper: HELPER });
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('buildHelperCall', () => {
  it('returns the envelope with the runtime and its configurationHash', () => {
    const call = build();
    assert.equal(call.operation, 'ensure-namespace');
    assert.deepEqual(call.envelope, {
      protocolVersion: PROTOCOL_VERSION,
      operation: 'ensure-namespace',
      args: NAMESPACE,
      runtime: RUNTIME,
      configurationHash: canonicalHash(RUNTIME),
      requestId: 'req-1',
    });
  });

  it('seals the encoded envelope on stdin ahead of the helper, named by the header on argv', () => {
    const call = build();
    const input = splitHelperInput(call.stdin);
    assert.ok(input);
    const encoded = input.sealed;
    assert.deepEqual(decodeArgument(encoded), call.envelope);
    assert.deepEqual(call.stdin, Buffer.concat([Buffer.from(`globalThis[Symbol.for(${JSON.stringify(SEALED_KEY)})]="${encoded}";\n`), HELPER]));
    assert.equal(call.sealedBytes, encoded.length);
    assert.deepEqual(JSON.parse(Buffer.from(call.header, 'base64').toString('utf8')), { protocolVersion: PROTOCOL_VERSION, sealed: { sha256: sha256(encoded), bytes: encoded.length } });
    assert.equal(openSealed(call.header, encoded), encoded);
    assert.deepEqual(call.argv, ['/usr/bin/node', '-', call.header]);
    assert.equal(remoteCommand(call.argv), `/usr/bin/node - ${call.header}`);
  });

  it('is the same value for the same input: nothing random or timed', () => {
    assert.deepEqual(build(), build());
  });

  it('refuses an invalid or oversized operation as a permanent configuration error', () => {
    const invalid = () => buildHelperCall({ operation: 'ensure-namespace', args: { namespace: { id: '', name: 'Not A Label' } }, runtime: RUNTIME, requestId: 'req-1', helper: HELPER });
    assert.throws(invalid, (error: unknown) => error instanceof ComputeError && error.code === 'configuration');
    // Under MAX_DOCUMENT_BYTES as text, but every `"` doubles once JSON-escaped into the envelope.
    const document = '"'.repeat(MAX_DOCUMENT_BYTES - 8);
    const configuration = { document, hash: sha256(document), auth: 'password' as const };
    const revision = { owner: { ...NAMESPACE, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } }, revision: { id: 'rev-1', number: 1 } };
    const oversized = () =>
      buildHelperCall({ operation: 'prepare-revision', args: { ...revision, harness: 'openclaw/embedded', configuration }, runtime: RUNTIME, requestId: 'req-1', helper: HELPER });
    assert.throws(oversized, (error: unknown) => error instanceof ComputeError && error.code === 'configuration' && error.message.includes(`${MAX_ARGUMENT_BYTES}-byte argument limit`));
  });

  it('refuses a nodePath the remote shell would interpret (the runtime schema, before helperArgv checks it again)', () => {
    assert.throws(
      () => build({ ...RUNTIME, nodePath: '/usr/bin/node;id' }),
      (error: unknown) => error instanceof ComputeError && error.code === 'configuration' && /nodePath/.test(error.message),
    );
  });
});
