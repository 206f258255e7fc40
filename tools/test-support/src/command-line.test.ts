// The tools' one command line reading: strict flags with --help, and closed name lists.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namesFrom, parseFlags, UsageError } from './command-line.js';

describe('parseFlags', () => {
  it('reads the given flags and adds --help and -h', () => {
    assert.deepEqual({ ...parseFlags(['--out', 'x'], { out: { type: 'string' } }) }, { out: 'x', help: false });
    assert.equal(parseFlags(['-h'], { out: { type: 'string' } }).help, true);
  });

  it('refuses an unknown flag, a positional and a missing value as usage errors', () => {
    for (const argv of [['--nope'], ['word'], ['--out']]) assert.throws(() => parseFlags(argv, { out: { type: 'string' } }), UsageError, argv.join(' '));
  });
});

describe('namesFrom', () => {
  const ALLOWED = ['kill', 'faults', 'races'] as const;

  it('takes comma-separated names from the closed set, in the order given', () => {
    assert.deepEqual(namesFrom('only', 'races, kill', ALLOWED), ['races', 'kill']);
  });

  it('refuses an unknown name and an empty list', () => {
    assert.throws(() => namesFrom('only', 'kill,nope', ALLOWED), { name: 'UsageError', message: '--only takes kill, faults, races; got kill,nope' });
    assert.throws(() => namesFrom('only', ' , ', ALLOWED), UsageError);
  });
});
