import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { neutralise, printableJson, printableJsonText } from './journal-text.js';

/** Every character a terminal may obey, reorder by or not show: what the hostile lines below are made of. */
const HIDDEN_SAMPLES = [
  ...'\x00\x07\x08\t\n\x0b\x0c\r\x1b\x7f\u0080\u0085\u009b\u009d\u009f',
  ...'\u00ad\u061c\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e',
  ...'\u2060\u2066\u2067\u2068\u2069\ufeff\ufff9',
  '\u{e0001}',
  '\u{e0041}',
];

describe('neutralise', () => {
  test('ESC, CSI, OSC and other C0/C1 controls are shown as escapes; text stays', () => {
    assert.equal(neutralise('\x1b[2J\x1b]0;pwned\x07ok'), '\\x1b[2J\\x1b]0;pwned\\x07ok');
    assert.equal(neutralise('a\u009b31mb\u009dc'), 'a\\x9b31mb\\x9dc');
    assert.equal(neutralise('one two é ✓ 日本 😀'), 'one two é ✓ 日本 😀');
    assert.equal(neutralise('\x00\x7f'), '\\x00\\x7f');
  });

  test('a message cannot start a line of its own', () => {
    const shown = neutralise('ready\noperation=delete-namespace outcome=ok\r');
    assert.equal(shown.includes('\n') || shown.includes('\r'), false);
    assert.equal(shown, 'ready\\x0aoperation=delete-namespace outcome=ok\\x0d');
  });

  test('tab, bidi overrides, isolates and marks, zero-width characters and line separators are shown escaped', () => {
    assert.equal(neutralise('a\tb'), 'a\\x09b');
    // "agent-b" spelt backwards behind a right-to-left override would read as another Agent's name.
    assert.equal(neutralise('x \u202eb-tnega\u202c y'), 'x \\u202eb-tnega\\u202c y');
    assert.equal(neutralise('\u202a\u202b\u202d\u2066\u2067\u2068\u2069'), '\\u202a\\u202b\\u202d\\u2066\\u2067\\u2068\\u2069');
    assert.equal(neutralise('\u200e\u200f\u061c'), '\\u200e\\u200f\\u061c');
    assert.equal(neutralise('ok\u200b\u200c\u200d\u2060\ufeffdone'), 'ok\\u200b\\u200c\\u200d\\u2060\\ufeffdone');
    assert.equal(neutralise('one\u2028two\u2029three\u0085four'), 'one\\u2028two\\u2029three\\x85four');
    assert.equal(neutralise('soft\u00adhyphen'), 'soft\\xadhyphen');
    assert.equal(neutralise('tag\u{e0001}\u{e0041}'), 'tag\\u{e0001}\\u{e0041}');
  });

  test('a backslash is escaped, so a line cannot forge an escape it does not contain', () => {
    assert.equal(neutralise('\\u202e is not \u202e'), '\\\\u202e is not \\u202e');
    assert.equal(neutralise('C:\\x1b'), 'C:\\\\x1b');
    // Reading the output back: every backslash pair is a literal backslash, every other backslash an escape.
    assert.notEqual(neutralise('\\x1b'), neutralise('\x1b'));
  });

  test('lone surrogates are escaped; pairs are characters', () => {
    assert.equal(neutralise('a\ud800b\udc00c'), 'a\\ud800b\\udc00c');
    assert.equal(neutralise('\ud83d\ude00'), '😀');
  });

  test('no hidden character survives, one at a time or all together', () => {
    for (const c of HIDDEN_SAMPLES) assert.match(neutralise(`a${c}b`), /^a\\(x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\})b$/, `U+${c.codePointAt(0)?.toString(16)}`);
    assert.equal(/[^\x20-\x7e]/.test(neutralise(HIDDEN_SAMPLES.join(''))), false);
  });
});

describe('printableJson', () => {
  test('C1 controls, DEL, bidi and zero-width characters are \\u escapes in the JSON text, and it parses back to the same value', () => {
    const value = { message: 'hostile \x1b[2J\u009b31m\x7f \u202eevil\u202c\u2066\u200b\ufeff\u2028\t\\u202e \u{e0041}' };
    const text = printableJson(value);
    assert.equal(text, '{"message":"hostile \\u001b[2J\\u009b31m\\u007f \\u202eevil\\u202c\\u2066\\u200b\\ufeff\\u2028\\t\\\\u202e \\udb40\\udc41"}');
    assert.deepEqual(JSON.parse(text), value);
    assert.equal(/[^\x20-\x7e]/.test(text), false);
  });

  test('every hidden character round-trips, and text that is shown stays as it is', () => {
    const value = { all: HIDDEN_SAMPLES.join(''), shown: 'é ✓ 日本 😀', lone: 'a\ud800' };
    const text = printableJson(value);
    assert.deepEqual(JSON.parse(text), value);
    assert.match(text, /"shown":"é ✓ 日本 😀"/);
    assert.equal(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/.test(text), false);
  });

  test('JSON text keeps its own whitespace, so lines stay lines', () => {
    assert.equal(printableJsonText('{"a":"\u0085"}\n{"b":1}\r\n'), '{"a":"\\u0085"}\n{"b":1}\r\n');
    assert.equal(printableJsonText(JSON.stringify({ a: 1 }, null, '\t')), '{\n\t"a": 1\n}');
  });
});
