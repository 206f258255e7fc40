// The helper session's own bounds, in process: 170 s cannot be waited for on a host and the wire cannot shorten it.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { HELPER_DEADLINE_MS, Session } from './session.js';

describe('the helper session bounds (no host: 170 s cannot be waited for and the wire cannot shorten it)', () => {
  test('the helper deadline is 170 s, below the 180 s transport bound, and stops any further change', () => {
    assert.equal(HELPER_DEADLINE_MS, 170_000);
    assert.ok(HELPER_DEADLINE_MS < 180_000);
    const session = new Session(new PassThrough(), 0);
    assert.throws(
      () => session.checkpoint(),
      (error: unknown) => error instanceof ComputeError && error.code === 'timeout',
    );
  });

  test('a failed heartbeat write marks the session closed and refuses the next change', async () => {
    const session = new Session(new Writable({ write: (_chunk, _encoding, done) => done(new Error('EPIPE')) }));
    session.heartbeat();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(session.isClosed, true);
    assert.throws(
      () => session.checkpoint(),
      (error: unknown) => error instanceof ComputeError && error.code === 'cancelled',
    );
  });
});
