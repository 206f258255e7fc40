// Secret search: every encoding is found at every alignment, inside decoded helper arguments too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base64Cores, findSightings, groupSightings, helperInvocations, type Secret } from './sightings.js';

const doc: Secret = { name: 'document sentinel', value: 'doc-sentinel-0123456789abcdef' };
const password: Secret = { name: 'managed password', value: 'Zm9vYmFyLWJhei1xdXV4LXNlY3JldC1wYXNzd29yZA' };
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('base64Cores', () => {
  it('finds the value inside base64 of any surrounding text, at each byte alignment', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', '{"x-sentinel":"']) {
      const encoded = b64(`${prefix}${doc.value}","more":1}`);
      assert.ok(
        base64Cores(doc.value).some((core) => encoded.includes(core)),
        `prefix ${JSON.stringify(prefix)}`,
      );
    }
  });

  it('does not match base64 of unrelated text', () => {
    const encoded = b64('nothing to see here, just a long ordinary sentence of text');
    assert.equal(
      base64Cores(doc.value).some((core) => encoded.includes(core)),
      false,
    );
  });
});

describe('findSightings', () => {
  it('finds raw, hex, base64 and base64url forms', () => {
    const text = [`log line ${doc.value}`, `hex ${Buffer.from(doc.value).toString('hex')}`, `b64 ${b64(`xx${doc.value}`)}`, `url ${Buffer.from(`x${password.value}`).toString('base64url')}`].join(
      '\n',
    );
    const found = findSightings([doc, password], [{ name: 'logs', text }]);
    assert.deepEqual(
      found
        .filter((s) => s.secret === doc.name)
        .map((s) => s.encoding)
        .sort(),
      ['base64', 'hex', 'raw'],
    );
    assert.ok(found.some((s) => s.secret === password.name && (s.encoding === 'base64url' || s.encoding === 'base64')));
    // A value whose base64 needs + or / is found in URL-safe text by its URL-safe spelling.
    const slashy: Secret = { name: 'slashy', value: '\u00ff\u00fe\u00fdslashy-secret-value' };
    const url = findSightings([slashy], [{ name: 'logs', text: Buffer.from(`ab${slashy.value}`).toString('base64url') }]);
    assert.deepEqual(
      url.map((s) => s.encoding),
      ['base64url'],
    );
  });

  it('finds a value inside a helper argument on an argv, JSON-escaped or not', () => {
    const argument = b64(JSON.stringify({ operation: 'prepare-revision', args: { configuration: { document: `{"x-sentinel": "${doc.value}"}` } } }));
    const argv = `/usr/local/bin/node - ${argument}\nssh -F none -T -- 198.51.100.2 /usr/local/bin/node - ${argument}`;
    const found = findSightings([doc], [{ name: 'host argv', text: argv, argv: true }]);
    assert.deepEqual(found.map((s) => s.encoding).sort(), ['base64', 'base64', 'operation-argument', 'operation-argument']);
    const escaped: Secret = { name: 'quoted', value: 'has "quotes" inside it' };
    const quoted = b64(JSON.stringify({ note: escaped.value }));
    assert.ok(findSightings([escaped], [{ name: 'host argv', text: `/usr/bin/node - ${quoted}`, argv: true }]).some((s) => s.encoding === 'operation-argument'));
  });

  it('finds nothing in a header argument that only names the sealed operation', () => {
    const header = b64(JSON.stringify({ protocolVersion: 2, sealed: { sha256: 'a'.repeat(64), bytes: 4000 } }));
    const text = `/usr/local/bin/node - ${header}`;
    assert.deepEqual(findSightings([doc, password], [{ name: 'host argv', text, argv: true }]), []);
    assert.equal(helperInvocations(`${text}\nsshd: root@notty\n${text}`), 2);
  });

  it('finds a raw value on an argv', () => {
    const found = findSightings([doc], [{ name: 'host argv', text: `/usr/local/bin/node /opt/gateway.cjs --note ${doc.value}`, argv: true }]);
    assert.deepEqual(
      found.map((s) => s.encoding),
      ['raw'],
    );
  });

  it('reports nothing when nothing is there, and refuses secrets too short to search for', () => {
    assert.deepEqual(findSightings([doc, password], [{ name: 'logs', text: 'operation succeeded\n' }]), []);
    assert.throws(() => findSightings([{ name: 'short', value: 'abc' }], []), RangeError);
  });
});

describe('groupSightings', () => {
  it('counts sightings by secret, corpus and encoding', () => {
    const groups = groupSightings([
      { secret: 's', corpus: 'logs', encoding: 'raw', where: 'logs line 1' },
      { secret: 's', corpus: 'logs', encoding: 'raw', where: 'logs line 9' },
      { secret: 's', corpus: 'host argv', encoding: 'operation-argument', where: 'host argv line 2' },
    ]);
    assert.deepEqual(
      groups.map((g) => [g.corpus, g.count, g.first]),
      [
        ['logs', 2, 'logs line 1'],
        ['host argv', 1, 'host argv line 2'],
      ],
    );
  });
});
