// Secret search: every encoding is found at every alignment, and only the documented transport case is excused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base64Cores, findSightings, groupSightings, type Secret } from './sightings.js';

const doc: Secret = { name: 'document sentinel', value: 'doc-sentinel-0123456789abcdef', allowedInOperationArgument: true };
const password: Secret = { name: 'managed password', value: 'Zm9vYmFyLWJhei1xdXV4LXNlY3JldC1wYXNzd29yZA', allowedInOperationArgument: false };
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('base64Cores', () => {
  it('finds the value inside base64 of any surrounding text, at each byte alignment', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', '{"x-sentinel":"']) {
      const encoded = b64(`${prefix}${doc.value}","more":1}`);
      assert.ok(base64Cores(doc.value).some((core) => encoded.includes(core)), `prefix ${JSON.stringify(prefix)}`);
    }
  });

  it('does not match base64 of unrelated text', () => {
    const encoded = b64('nothing to see here, just a long ordinary sentence of text');
    assert.equal(base64Cores(doc.value).some((core) => encoded.includes(core)), false);
  });
});

describe('findSightings', () => {
  it('finds raw, hex, base64 and base64url forms', () => {
    const text = [
      `log line ${doc.value}`,
      `hex ${Buffer.from(doc.value).toString('hex')}`,
      `b64 ${b64(`xx${doc.value}`)}`,
      `url ${Buffer.from(`x${password.value}`).toString('base64url')}`,
    ].join('\n');
    const found = findSightings([doc, password], [{ name: 'logs', text }]);
    assert.deepEqual(found.filter((s) => s.secret === doc.name).map((s) => s.encoding).sort(), ['base64', 'hex', 'raw']);
    assert.ok(found.some((s) => s.secret === password.name && (s.encoding === 'base64url' || s.encoding === 'base64')));
    // A value whose base64 needs + or / is found in URL-safe text by its URL-safe spelling.
    const slashy: Secret = { name: 'slashy', value: '\u00ff\u00fe\u00fdslashy-secret-value', allowedInOperationArgument: false };
    const url = findSightings([slashy], [{ name: 'logs', text: Buffer.from(`ab${slashy.value}`).toString('base64url') }]);
    assert.deepEqual(url.map((s) => s.encoding), ['base64url']);
    assert.ok(found.every((s) => !s.design));
  });

  it('excuses a document sentinel base64-encoded inside a helper operation argument on an argv', () => {
    const argument = b64(JSON.stringify({ operation: 'prepare-revision', args: { configuration: { document: `{"x-sentinel": "${doc.value}"}` } } }));
    const argv = `/usr/local/bin/node - ${argument}\nssh -F none -T -- 10.0.0.2 /usr/local/bin/node - ${argument}`;
    const found = findSightings([doc], [{ name: 'host argv', text: argv, argv: true }]);
    assert.equal(found.length, 2);
    assert.ok(found.every((s) => s.design && s.encoding === 'operation-argument'));
  });

  it('never excuses the same bytes outside an argv, or the password anywhere', () => {
    const argument = b64(JSON.stringify({ document: doc.value, password: password.value }));
    const line = `/usr/local/bin/node - ${argument}`;
    assert.ok(findSightings([doc], [{ name: 'logs', text: line }]).every((s) => !s.design));
    const onArgv = findSightings([password], [{ name: 'host argv', text: line, argv: true }]);
    assert.ok(onArgv.length > 0 && onArgv.every((s) => !s.design));
  });

  it('a raw value on an argv is never the design case', () => {
    const found = findSightings([doc], [{ name: 'host argv', text: `/usr/local/bin/node /opt/gateway.cjs --note ${doc.value}`, argv: true }]);
    assert.deepEqual(found.map((s) => [s.encoding, s.design]), [['raw', false]]);
  });

  it('reports nothing when nothing is there, and refuses secrets too short to search for', () => {
    assert.deepEqual(findSightings([doc, password], [{ name: 'logs', text: 'operation succeeded\n' }]), []);
    assert.throws(() => findSightings([{ name: 'short', value: 'abc', allowedInOperationArgument: false }], []), RangeError);
  });
});

describe('groupSightings', () => {
  it('counts sightings by secret, corpus, encoding and design', () => {
    const groups = groupSightings([
      { secret: 's', corpus: 'logs', encoding: 'raw', design: false, where: 'logs line 1' },
      { secret: 's', corpus: 'logs', encoding: 'raw', design: false, where: 'logs line 9' },
      { secret: 's', corpus: 'host argv', encoding: 'operation-argument', design: true, where: 'host argv line 2' },
    ]);
    assert.deepEqual(groups.map((g) => [g.corpus, g.count, g.first]), [['logs', 2, 'logs line 1'], ['host argv', 1, 'host argv line 2']]);
  });
});
