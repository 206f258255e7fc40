// The error catalogue: every code has a verdict, and only the documented ones are permanent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError, ERROR_CODES, type ErrorCode, FAILURE_OF, failureOf, isErrorCode, toComputeError } from './errors.js';

describe('ERROR_CODES and FAILURE_OF', () => {
  it('every code has a verdict, and the table has no other keys', () => {
    assert.deepEqual(Object.keys(FAILURE_OF).sort(), [...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      assert.ok(FAILURE_OF[code] === 'permanent' || FAILURE_OF[code] === 'retryable', code);
      assert.equal(failureOf(code), FAILURE_OF[code]);
    }
    assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length, 'no duplicate codes');
  });

  it('ownership, configuration and admission are permanent', () => {
    for (const code of ['ownership', 'configuration', 'admission'] as const) assert.equal(FAILURE_OF[code], 'permanent', code);
  });

  it('an unbound revision and a missing host requirement are permanent (fail closed)', () => {
    assert.equal(FAILURE_OF.unbound, 'permanent');
    assert.equal(FAILURE_OF['host-requirement'], 'permanent');
  });

  it('transport, timeout, internal and cancelled are retryable', () => {
    for (const code of ['transport', 'timeout', 'internal', 'cancelled'] as const) assert.equal(FAILURE_OF[code], 'retryable', code);
  });

  it('the exact verdict table: the five refusals are permanent, everything else retryable', () => {
    const permanent = ERROR_CODES.filter((code) => FAILURE_OF[code] === 'permanent');
    const retryable = ERROR_CODES.filter((code) => FAILURE_OF[code] === 'retryable');
    assert.deepEqual(permanent, ['configuration', 'ownership', 'admission', 'unbound', 'host-requirement']);
    assert.deepEqual(retryable, ['not-ready', 'lock-timeout', 'host-command', 'transport', 'timeout', 'cancelled', 'hook', 'conflict', 'protocol', 'internal', 'capacity']);
  });

  it('isErrorCode accepts catalogue codes only', () => {
    for (const code of ERROR_CODES) assert.equal(isErrorCode(code), true);
    for (const value of ['', 'Ownership', 'fatal', undefined, null, 1, {}]) assert.equal(isErrorCode(value), false, String(value));
  });
});

describe('ComputeError', () => {
  it('carries code, verdict, details and cause', () => {
    const cause = new Error('root cause');
    const error = new ComputeError('ownership', 'foreign marker', { host: 'stable', path: '/x' }, { cause });
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'ComputeError');
    assert.equal(error.code, 'ownership');
    assert.equal(error.failure, 'permanent');
    assert.equal(error.permanent, true);
    assert.equal(error.retryable, false);
    assert.deepEqual(error.details, { host: 'stable', path: '/x' });
    assert.equal(error.cause, cause);
  });

  it('permanent and retryable are exact opposites for every code', () => {
    for (const code of ERROR_CODES) {
      const error = new ComputeError(code as ErrorCode, 'x');
      assert.equal(error.permanent, !error.retryable, code);
      assert.deepEqual(error.details, {});
    }
  });
});

describe('toComputeError', () => {
  it('turns unknown errors into retryable internal ones, never permanent', () => {
    for (const thrown of [new Error('boom'), new TypeError('x'), 'a string', 42, undefined, null, { code: 'ownership' }]) {
      const error = toComputeError(thrown);
      assert.ok(error instanceof ComputeError);
      assert.equal(error.code, 'internal');
      assert.equal(error.retryable, true);
      assert.equal(error.permanent, false);
      assert.equal(error.cause, thrown);
    }
  });

  it('does not leak the message of an unknown error', () => {
    const error = toComputeError(new Error('password=hunter2'));
    assert.doesNotMatch(error.message, /hunter2/);
  });

  it('an error that merely looks like a catalogue error is not trusted', () => {
    const lookalike = Object.assign(new Error('x'), { code: 'ownership', failure: 'permanent' });
    assert.equal(toComputeError(lookalike).code, 'internal');
  });

  it('passes a ComputeError through, adding details without overriding its own', () => {
    const original = new ComputeError('ownership', 'foreign', { path: '/a' });
    assert.equal(toComputeError(original), original);
    const merged = toComputeError(original, { host: 'stable', path: '/b' });
    assert.equal(merged.code, 'ownership');
    assert.equal(merged.message, 'foreign');
    assert.deepEqual(merged.details, { host: 'stable', path: '/a' });
  });

  it('attaches details to a wrapped unknown error', () => {
    assert.deepEqual(toComputeError(new Error('x'), { host: 'stable', operation: 'probe' }).details, { host: 'stable', operation: 'probe' });
  });
});
