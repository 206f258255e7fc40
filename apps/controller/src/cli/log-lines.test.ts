// Log lines for people on a terminal, JSON for everything else.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { logDestination, readableLine } from './log-lines.js';

function sink(isTTY: boolean) {
  let text = '';
  const stream = new Writable({ write: (chunk: Buffer, _e, done) => ((text += chunk.toString()), done()) }) as Writable & { isTTY?: boolean };
  stream.isTTY = isTTY;
  return { stream, text: () => text };
}

const LINE = '{"level":30,"time":1764511200123,"pid":7,"hostname":"c","name":"compute-ssh","host":"stable","operation":"probe","ms":42,"msg":"operation done"}';

describe('CLI log lines', () => {
  test('a pino line reads as time, level, message and fields', () => {
    assert.equal(readableLine(LINE), '14:00:00.123 INFO  operation done host=stable operation=probe ms=42');
    assert.equal(readableLine('not json'), 'not json');
  });

  test('a terminal gets readable lines, split chunks included; a pipe gets the JSON unchanged', async () => {
    const tty = sink(true);
    const dest = logDestination(tty.stream);
    dest.write(LINE.slice(0, 20));
    dest.write(`${LINE.slice(20)}\n`);
    const pipe = sink(false);
    logDestination(pipe.stream).write(`${LINE}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(tty.text(), '\r\x1b[K14:00:00.123 INFO  operation done host=stable operation=probe ms=42\n');
    assert.equal(pipe.text(), `${LINE}\n`);
  });

  test('a host’s text in a message or field is shown escaped on a terminal, never obeyed', () => {
    const line = JSON.stringify({ level: 50, time: 1764511200123, msg: 'failed \u202eko\u202c\x1b[2J', detail: 'a\tb\u2028c\\x1b', n: { s: '\u009b' } });
    assert.equal(readableLine(line), '14:00:00.123 ERROR failed \\u202eko\\u202c\\x1b[2J detail=a\\x09b\\u2028c\\\\x1b n={"s":"\\u009b"}');
    assert.equal(readableLine('not json \u202e\x1b'), 'not json \\u202e\\x1b');
  });

  test('a pipe gets JSON lines with C1, bidi and zero-width characters escaped, split characters included', async () => {
    const pipe = sink(false);
    const dest = logDestination(pipe.stream);
    const bytes = Buffer.from(`${JSON.stringify({ msg: 'x\u202ey\u0085\u200b' })}\n`);
    // Cut inside the three bytes of U+202E.
    dest.write(bytes.subarray(0, 10));
    dest.write(bytes.subarray(10));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(pipe.text(), '{"msg":"x\\u202ey\\u0085\\u200b"}\n');
  });
});
