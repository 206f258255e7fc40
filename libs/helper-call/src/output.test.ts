// readHelperOutput and heartbeatReader: the one reading of the helper's stdout.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROTOCOL_VERSION, formatLine, type ResultLine } from '@occ-ssh/protocol';
import { heartbeatReader, readHelperOutput } from './output.js';

const ok: ResultLine = { type: 'result', protocolVersion: PROTOCOL_VERSION, helperVersion: '0.1.0', operation: 'probe', requestId: 'r-1', timings: { totalMs: 3 }, ok: true, result: {} };
const beat = (seq: number) => formatLine({ type: 'heartbeat', seq });

describe('readHelperOutput', () => {
  it('returns the final line and every heartbeat before it', () => {
    assert.deepEqual(readHelperOutput(`${beat(0)}${beat(1)}${beat(2)}${formatLine(ok)}`), { line: ok, heartbeats: [0, 1, 2] });
  });

  it('has no final line when the output ends in a heartbeat or garbage, and counts only well-formed heartbeats', () => {
    assert.deepEqual(readHelperOutput(`${formatLine(ok)}${beat(4)}`), { line: undefined, heartbeats: [4] });
    assert.deepEqual(readHelperOutput(`{"type":"heartbeat","seq":-1}\n{"type":"heartbeat"\n${formatLine(ok)}garbage\n`), { line: undefined, heartbeats: [] });
    assert.deepEqual(readHelperOutput(''), { line: undefined, heartbeats: [] });
  });
});

describe('heartbeatReader', () => {
  it('reports heartbeats split across chunks once each, and nothing for the result line', () => {
    const seen: number[] = [];
    const read = heartbeatReader((seq) => seen.push(seq));
    const text = `${beat(0)}${beat(1)}${formatLine(ok)}`;
    for (const piece of [text.slice(0, 5), text.slice(5, 31), text.slice(31)]) read(Buffer.from(piece));
    assert.deepEqual(seen, [0, 1]);
  });
});
