// describePrepareRevisionFailure: every catalogue code in OCC's diagnostic format, whatever the message holds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError, ERROR_CODES, type ErrorCode } from '@occ-ssh/protocol';
import { DIAGNOSTIC_CODE, DIAGNOSTIC_OF, DIAGNOSTIC_STAGE, MAX_DIAGNOSTIC_MESSAGE, describePrepareRevisionFailure, type PrepareFailureDiagnostic } from './diagnostics.js';

/** OCC's own acceptance rule: a diagnostic failing any of these is dropped whole. */
function assertInFormat(diagnostic: PrepareFailureDiagnostic): void {
  assert.deepEqual(
    Object.keys(diagnostic).filter((key) => !['code', 'stage', 'message'].includes(key)),
    [],
  );
  assert.match(diagnostic.code, DIAGNOSTIC_CODE);
  assert.match(diagnostic.stage, DIAGNOSTIC_STAGE);
  if (diagnostic.message !== undefined) {
    assert.ok(diagnostic.message.length <= MAX_DIAGNOSTIC_MESSAGE, `${diagnostic.message.length} characters`);
    assert.match(diagnostic.message, /^[\x20-\x7e]*$/);
  }
}

const HOSTILE = `first line \u0007with\ttabs \u00e9 and opaque-iam-token-123 inside ${'x'.repeat(400)}\nsecond line opaque-cfg-2\r\nthird`;

describe('describePrepareRevisionFailure: every catalogue code', () => {
  it('has one distinct OCC code and a default stage for each catalogue code, and no other', () => {
    assert.deepEqual(Object.keys(DIAGNOSTIC_OF).sort(), [...ERROR_CODES].sort());
    const codes = Object.values(DIAGNOSTIC_OF).map((entry) => entry.code);
    assert.equal(new Set(codes).size, codes.length);
    assert.equal(DIAGNOSTIC_OF.ownership.code, 'SSH_OWNERSHIP');
  });

  it('maps each code, with or without an operation and with any message, into the format', () => {
    for (const code of ERROR_CODES) {
      for (const details of [{}, { operation: 'prepare-revision', host: 'stable' }, { operation: 'beforeWorkloadStart' }, { operation: '../../etc' }]) {
        for (const message of ['plain', '', HOSTILE, '\n\n', 'y'.repeat(1000)]) {
          const diagnostic = describePrepareRevisionFailure(new ComputeError(code, message, details));
          assertInFormat(diagnostic);
          assert.equal(diagnostic.code, DIAGNOSTIC_OF[code].code);
        }
      }
    }
  });

  it('names the stage after the helper operation or hook phase, else the code default', () => {
    const stage = (code: ErrorCode, operation?: string) => describePrepareRevisionFailure(new ComputeError(code, 'm', operation === undefined ? {} : { operation })).stage;
    assert.equal(stage('ownership', 'prepare-revision'), 'prepare_revision');
    assert.equal(stage('hook', 'beforeWorkloadStart'), 'before_workload_start');
    assert.equal(stage('admission'), 'admission');
    assert.equal(stage('host-requirement'), 'host_requirement');
    assert.equal(stage('transport', '../../etc'), 'transport');
    assert.equal(stage('transport', 'x'.repeat(65)), 'transport');
  });
});

describe('describePrepareRevisionFailure: the message', () => {
  it('keeps the first line only, printable, with placeholders redacted, at most 256 characters', () => {
    const { message = '' } = describePrepareRevisionFailure(new ComputeError('ownership', HOSTILE));
    assert.ok(message.startsWith('first line ?with?tabs ? and opaque-[redacted] inside xxx'), message);
    assert.equal(message.length, MAX_DIAGNOSTIC_MESSAGE);
    assert.doesNotMatch(message, /second|third|iam-token|cfg-2/);
  });

  it('keeps a short one-line message as it is, and leaves out one with nothing printable', () => {
    const text = 'configuration.gateway.tls.enabled: must be omitted or false';
    assert.equal(describePrepareRevisionFailure(new ComputeError('admission', text)).message, text);
    for (const empty of ['', '   ', '\nsecond']) assert.equal(describePrepareRevisionFailure(new ComputeError('admission', empty)).message, undefined);
  });
});

describe('describePrepareRevisionFailure: anything else thrown', () => {
  it('gets a fixed, generic diagnostic that repeats nothing of the input', () => {
    const forged = new ComputeError('no-such-code' as ErrorCode, 'forged');
    for (const thrown of [new Error('password hunter2'), 'hunter2', undefined, null, { code: 'ownership', message: 'hunter2' }, forged]) {
      const diagnostic = describePrepareRevisionFailure(thrown);
      assertInFormat(diagnostic);
      assert.deepEqual(diagnostic, { code: 'SSH_INTERNAL', stage: 'internal', message: 'unexpected internal failure' });
    }
  });
});

// A table that misses a catalogue code does not compile.
const { internal: _dropped, ...partial } = DIAGNOSTIC_OF;
// @ts-expect-error the `internal` code has no entry
export const incomplete: typeof DIAGNOSTIC_OF = partial;
