// The operation sealed on stdin and the argv header that names it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInNewContext, runInThisContext } from 'node:vm';
import { ComputeError, PROTOCOL_VERSION } from '@occ-ssh/protocol';
import { SEALED_KEY, helperInput, splitHelperInput, takeSealed } from './input.js';
import { MAX_HEADER_BYTES, openSealed, sealOperation, sealRaw } from './sealed.js';

const ENCODED = Buffer.from(JSON.stringify({ operation: 'probe', document: 'secret-document-text' })).toString('base64');

function refusal(run: () => unknown, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ComputeError);
    assert.equal(error.code, 'configuration');
    assert.equal(error.permanent, true);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('sealOperation', () => {
  it('puts only the protocol version, digest and length on argv', () => {
    const sealed = sealOperation(ENCODED);
    const header = JSON.parse(Buffer.from(sealed.argument, 'base64').toString('utf8'));
    assert.deepEqual(Object.keys(header).sort(), ['protocolVersion', 'sealed']);
    assert.equal(header.protocolVersion, PROTOCOL_VERSION);
    assert.equal(header.sealed.bytes, ENCODED.length);
    assert.match(header.sealed.sha256, /^[0-9a-f]{64}$/);
    assert.ok(!sealed.argument.includes(ENCODED.slice(0, 12)));
    assert.ok(sealed.argument.length < MAX_HEADER_BYTES);
  });

  it('writes a prelude that defines the sealed text when run as JavaScript', () => {
    const sealed = sealOperation(ENCODED);
    const value = runInNewContext(`${sealed.prelude}globalThis[Symbol.for(${JSON.stringify(SEALED_KEY)})]`, {});
    assert.equal(value, ENCODED);
  });

  it('refuses text that is not base64, so nothing can escape the string literal', () => {
    for (const text of ['', 'a"b', 'a\nb', 'a\\b', '</script>']) assert.throws(() => sealOperation(text), TypeError, JSON.stringify(text));
  });

  it('builds the helper input as the prelude, then the helper bytes, and splits it back', () => {
    const sealed = sealOperation(ENCODED);
    const input = helperInput(Buffer.from('"use strict";helper();\n'), sealed);
    assert.equal(input.toString('utf8'), `${sealed.prelude}"use strict";helper();\n`);
    const split = splitHelperInput(input);
    assert.equal(split?.sealed, ENCODED);
    assert.equal(split?.helper.toString('utf8'), '"use strict";helper();\n');
    assert.equal(splitHelperInput(Buffer.from('"use strict";helper();\n')), undefined);
  });
});

describe('sealRaw', () => {
  it('seals any text under its own digest, so the helper judges the text itself', () => {
    for (const text of ['', 'a"b', 'not base64 at all']) {
      const sealed = sealRaw(text);
      assert.equal(runInNewContext(`${sealed.prelude}globalThis[Symbol.for(${JSON.stringify(SEALED_KEY)})]`, {}), text);
      if (text) assert.equal(openSealed(sealed.argument, text), text);
    }
    assert.deepEqual(sealRaw(ENCODED), sealOperation(ENCODED));
  });

  it('assigns a non-string as such, under the header of the text it names', () => {
    const sealed = sealRaw({ text: ENCODED }, ENCODED);
    assert.equal(sealed.argument, sealOperation(ENCODED).argument);
    assert.equal(runInNewContext(`${sealed.prelude}JSON.stringify(globalThis[Symbol.for(${JSON.stringify(SEALED_KEY)})])`, {}), JSON.stringify({ text: ENCODED }));
    assert.equal(splitHelperInput(helperInput(Buffer.from('x'), sealed)), undefined);
    refusal(() => openSealed(sealRaw(42).argument, 42), /missing from the helper input/);
  });
});

describe('takeSealed', () => {
  it('returns what the prelude assigned and leaves nothing behind', () => {
    runInThisContext(sealOperation(ENCODED).prelude);
    assert.equal(takeSealed(), ENCODED);
    assert.equal(takeSealed(), undefined);
  });
});

describe('openSealed', () => {
  it('returns the sealed text its header names', () => {
    const sealed = sealOperation(ENCODED);
    assert.equal(openSealed(sealed.argument, ENCODED), ENCODED);
  });

  it('refuses a missing, oversized, non-canonical or non-JSON header', () => {
    refusal(() => openSealed(undefined, ENCODED), /missing operation argument/);
    refusal(() => openSealed('', ENCODED), /missing operation argument/);
    refusal(() => openSealed('A'.repeat(MAX_HEADER_BYTES + 4), ENCODED), /exceeds 512 bytes/);
    refusal(() => openSealed('bm90IGJhc2U2NA', ENCODED), /not canonical base64/);
    refusal(() => openSealed('e30=!', ENCODED), /not canonical base64/);
    refusal(() => openSealed(Buffer.from('{oops').toString('base64'), ENCODED), /not JSON/);
  });

  it('refuses a header of another shape or protocol version', () => {
    const header = JSON.parse(Buffer.from(sealOperation(ENCODED).argument, 'base64').toString('utf8'));
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
    refusal(() => openSealed(encode({ ...header, protocolVersion: 1 }), ENCODED), /invalid operation argument/);
    refusal(() => openSealed(encode({ ...header, extra: true }), ENCODED), /invalid operation argument/);
    refusal(() => openSealed(encode({ ...header, sealed: { ...header.sealed, bytes: 0 } }), ENCODED), /invalid operation argument/);
    refusal(() => openSealed(encode({ ...header, sealed: { ...header.sealed, sha256: 'x' } }), ENCODED), /invalid operation argument/);
  });

  it('refuses a sealed text that is missing, not a string, or does not match the digest', () => {
    const { argument } = sealOperation(ENCODED);
    refusal(() => openSealed(argument, undefined), /missing from the helper input/);
    refusal(() => openSealed(argument, 42), /missing from the helper input/);
    refusal(() => openSealed(argument, `${ENCODED.slice(0, -4)}AAAA`), /does not match the digest/);
    refusal(() => openSealed(argument, `${ENCODED}AAAA`), /does not match the digest/);
  });
});
