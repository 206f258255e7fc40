// Canonical JSON and its hash: the bytes behind every configuration hash.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { canonicalHash, canonicalJson } from './hashes.js';

const sha256 = (text: string): string => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    assert.equal(canonicalJson({ b: 1, a: { z: true, y: [{ d: 1, c: 2 }], x: null } }), '{"a":{"x":null,"y":[{"c":2,"d":1}],"z":true},"b":1}');
  });

  it('keeps array order', () => {
    assert.equal(canonicalJson([3, 1, 2, 'b', 'a']), '[3,1,2,"b","a"]');
    assert.equal(canonicalJson({ list: [{ b: 1 }, { a: 2 }] }), '{"list":[{"b":1},{"a":2}]}');
  });

  it('drops undefined object members at every depth', () => {
    assert.equal(canonicalJson({ a: undefined, b: 1, c: { d: undefined, e: 2 } }), '{"b":1,"c":{"e":2}}');
    assert.equal(canonicalJson({ a: undefined }), '{}');
  });

  it('is independent of insertion order', () => {
    const one = { root: '/r', user: 'u', range: { start: 1, end: 2 } };
    const two = { range: { end: 2, start: 1 }, user: 'u', root: '/r' };
    assert.equal(canonicalJson(one), canonicalJson(two));
  });

  it('refuses NaN and infinities at any depth', () => {
    assert.throws(() => canonicalJson(Number.NaN), TypeError);
    assert.throws(() => canonicalJson({ a: { b: Number.NaN } }), TypeError);
    assert.throws(() => canonicalJson([1, Number.POSITIVE_INFINITY]), TypeError);
    assert.throws(() => canonicalJson({ a: Number.NEGATIVE_INFINITY }), TypeError);
  });

  it('writes scalars and strings as JSON does', () => {
    assert.equal(canonicalJson('a"b\n'), '"a\\"b\\n"');
    assert.equal(canonicalJson(null), 'null');
    assert.equal(canonicalJson(0), '0');
    assert.equal(canonicalJson({ '\u00e9': 1, e: 2 }), '{"e":2,"\u00e9":1}');
  });
});

describe('canonicalHash', () => {
  it('is SHA-256 hex of the canonical text', () => {
    const value = { user: 'openclaw', root: '/var/lib/openclaw-enterprise', gatewayPortRange: { start: 18800, end: 18899 } };
    assert.equal(canonicalHash(value), sha256(canonicalJson(value)));
    assert.equal(canonicalJson(value), '{"gatewayPortRange":{"end":18899,"start":18800},"root":"/var/lib/openclaw-enterprise","user":"openclaw"}');
    assert.match(canonicalHash(value), /^[0-9a-f]{64}$/);
  });

  it('is the same for the same value in any key order, different for a different value', () => {
    assert.equal(canonicalHash({ a: 1, b: 2 }), canonicalHash({ b: 2, a: 1 }));
    assert.notEqual(canonicalHash({ a: 1, b: 2 }), canonicalHash({ a: 1, b: 3 }));
    assert.equal(canonicalHash({}), sha256('{}'));
    assert.equal(canonicalHash({}), '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('hashes UTF-8 bytes', () => {
    assert.equal(canonicalHash({ name: '\u65e5\u672c' }), sha256('{"name":"\u65e5\u672c"}'));
  });
});
