// How problems read: ordering, the first key, truncated values, quoted keys and no file contents.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configurationError, describeValue, formatProblem, renderKeyPath } from './errors.js';
import { CONFIG_KEY, refusal, seedWith } from '../../test/config-fixtures.js';

describe('configuration problems', () => {
  it('lists every problem in document order, with details.key naming the first', () => {
    const error = refusal(
      seedWith(
        ['          end: 18899\n', '          end: 70000\n'],
        ['        user: openclaw\n', '        user: root\n'],
        ['        connectTimeoutSeconds: 10\n', '        connectTimeoutSeconds: 0\n'],
      ),
    );
    assert.equal(error.details.key, `${CONFIG_KEY}.ssh.connectTimeoutSeconds`);
    assert.deepEqual(error.message.split('\n'), [
      `${CONFIG_KEY}.ssh.connectTimeoutSeconds: expected an integer from 1 to 300, got 0 (line 8)`,
      `${CONFIG_KEY}.runtime.user: must not be root, got "root" (line 19)`,
      `${CONFIG_KEY}.network.gatewayPortRange.end: expected at most 65535, got 70000 (line 25)`,
    ]);
  });

  it('shows only the offending scalar, never other document contents', () => {
    const error = refusal(seedWith(['          port: 22\n', '          port: 22x\n']));
    for (const other of ['203.0.113.10', '/etc/openclaw', 'occ.example.com', 'configuration-postgres']) {
      assert.ok(!error.message.includes(other), other);
    }
  });

  it('truncates a long value to about 60 characters', () => {
    const long = `/${'a'.repeat(200)} b`;
    const line = refusal(seedWith(['        root: /var/lib/openclaw-enterprise\n', `        root: ${long}\n`])).message;
    assert.equal(line, `${CONFIG_KEY}.runtime.root: must not contain whitespace, got ${JSON.stringify(long).slice(0, 59)}… (line 20)`);
  });

  it('quotes keys that are not plain words, so they cannot forge a path or a line', () => {
    assert.equal(renderKeyPath(['drivers', 'compute', 'configuration', 'hosts', 'a.b\nc']), `drivers.compute.configuration.hosts["a.b\\nc"]`);
    assert.equal(renderKeyPath([]), 'Installation document');
    const error = refusal(seedWith(['        stable:\n', '        "bad\\nname":\n']));
    assert.equal(error.message.split('\n').length, 1);
    assert.equal(error.details.key, `${CONFIG_KEY}.hosts["bad\\nname"]`);
  });

  it('describes values by kind and renders numbers as written', () => {
    assert.equal(describeValue('22x'), '"22x"');
    assert.equal(describeValue(Infinity), 'Infinity');
    assert.equal(describeValue(null), 'null');
    assert.equal(describeValue([1]), 'a list');
    assert.equal(describeValue({ a: 1 }), 'a mapping');
    assert.equal(describeValue(undefined), undefined);
  });

  it('formats a problem without a value or a line', () => {
    assert.equal(formatProblem({ path: ['drivers', 'compute'], reason: 'is required' }), 'drivers.compute: is required');
  });

  it('caps a very long list of problems', () => {
    const problems = Array.from({ length: 60 }, (_, index) => ({ path: ['k', `x${index}`], reason: 'unknown key', offset: index }));
    const lines = configurationError(problems).message.split('\n');
    assert.equal(lines.length, 51);
    assert.equal(lines[50], '… and 10 more problems');
  });
});
