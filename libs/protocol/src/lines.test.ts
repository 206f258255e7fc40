// The helper's stdout: heartbeats, then one final result line that the controller trusts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROTOCOL_VERSION } from './version.js';
import { findResultLine, formatLine, type HeartbeatLine, heartbeatLine, type ResultLine, resultLine } from './lines.js';

const ok: ResultLine = {
  type: 'result',
  protocolVersion: PROTOCOL_VERSION,
  helperVersion: '0.1.0',
  operation: 'probe',
  requestId: 'req-1',
  timings: { totalMs: 12 },
  ok: true,
  result: { checks: [], nodeVersion: 'v24.0.0', hostname: 'h1', socketBindMissing: [] },
};
const failed: ResultLine = {
  type: 'result',
  protocolVersion: PROTOCOL_VERSION,
  helperVersion: '0.1.0',
  operation: 'prepare-revision',
  requestId: 'req-2',
  timings: { totalMs: 40, lockWaitMs: 3, lockHoldMs: 30 },
  ok: false,
  error: { code: 'ownership', message: 'foreign marker', path: '/var/lib/openclaw-enterprise/namespaces/x/namespace.json' },
};
const beat = (seq: number): string => formatLine({ type: 'heartbeat', seq });

describe('formatLine', () => {
  it('writes one JSON line ending in a newline', () => {
    assert.equal(beat(0), '{"type":"heartbeat","seq":0}\n');
    const text = formatLine(ok);
    assert.ok(text.endsWith('\n'));
    assert.equal(text.indexOf('\n'), text.length - 1);
    assert.deepEqual(JSON.parse(text), ok);
  });
});

describe('findResultLine', () => {
  it('finds a result after heartbeats', () => {
    assert.deepEqual(findResultLine(`${beat(0)}${beat(1)}${beat(2)}${formatLine(ok)}`), ok);
    assert.deepEqual(findResultLine(`${beat(0)}${formatLine(failed)}`), failed);
  });

  it('accepts a result without a trailing newline or with trailing blank lines', () => {
    assert.deepEqual(findResultLine(formatLine(ok).trimEnd()), ok);
    assert.deepEqual(findResultLine(`${formatLine(ok)}\n\n  \n`), ok);
  });

  it('takes only the last line: of two results, the last wins', () => {
    assert.deepEqual(findResultLine(`${formatLine(ok)}${beat(5)}${formatLine(failed)}`), failed);
  });

  it('a heartbeat after the result means there is no final result', () => {
    assert.equal(findResultLine(`${formatLine(ok)}${beat(3)}`), undefined);
  });

  it('garbage after the result is refused rather than skipped', () => {
    assert.equal(findResultLine(`${formatLine(ok)}garbage\n`), undefined);
    assert.equal(findResultLine(`${formatLine(ok)}{"type":"result"\n`), undefined);
  });

  it('refuses garbage, empty output and heartbeats alone', () => {
    for (const stdout of ['', '\n\n', 'garbage', 'Segmentation fault\n', `${beat(0)}${beat(1)}`, 'null\n', '[]\n', '42\n']) {
      assert.equal(findResultLine(stdout), undefined, JSON.stringify(stdout));
    }
  });

  it('refuses a result line that does not match the schema', () => {
    const bad = [
      { ...ok, extra: 1 },
      { ...ok, type: 'heartbeat' },
      { ...ok, operation: 'exec' },
      { ...ok, ok: 'yes' },
      { ...failed, error: { code: 'boom', message: 'x' } },
      { ...failed, error: { code: 'internal', message: 'x'.repeat(2001) } },
      { ...failed, error: { code: 'internal', message: 'x', stack: 'at ...' } },
      { ...ok, timings: { totalMs: -1 } },
      (({ timings: _timings, ...rest }) => rest)(ok),
    ];
    for (const value of bad) assert.equal(findResultLine(`${beat(0)}${JSON.stringify(value)}\n`), undefined, JSON.stringify(value).slice(0, 80));
  });

  it('accepts operation "unknown" for an argument that could not be decoded', () => {
    const unknown: ResultLine = { ...failed, operation: 'unknown', error: { code: 'configuration', message: 'operation argument is not JSON' } };
    assert.deepEqual(findResultLine(formatLine(unknown)), unknown);
  });

  it('tolerates surrounding whitespace and CRLF on the last line', () => {
    assert.deepEqual(findResultLine(`${beat(0)}  ${JSON.stringify(ok)}  \r\n`), ok);
  });
});

describe('heartbeat and result schemas', () => {
  it('heartbeat lines are strict', () => {
    const valid: HeartbeatLine = { type: 'heartbeat', seq: 7 };
    assert.equal(heartbeatLine.safeParse(valid).success, true);
    assert.equal(heartbeatLine.safeParse({ ...valid, extra: 1 }).success, false);
    assert.equal(heartbeatLine.safeParse({ ...valid, seq: -1 }).success, false);
    assert.equal(heartbeatLine.safeParse({ ...valid, seq: 1.5 }).success, false);
  });

  it('result lines are strict and discriminated by ok', () => {
    assert.equal(resultLine.safeParse(ok).success, true);
    assert.equal(resultLine.safeParse(failed).success, true);
    assert.equal(resultLine.safeParse({ ...ok, error: failed.ok ? undefined : failed.error }).success, false);
  });
});
