import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { neutralise } from './journal-text.js';

describe('neutralise', () => {
  test('ESC, CSI, OSC and other C0/C1 controls are shown as escapes; tab and text stay', () => {
    assert.equal(neutralise('\x1b[2J\x1b]0;pwned\x07ok'), '\\x1b[2J\\x1b]0;pwned\\x07ok');
    assert.equal(neutralise('a\u009b31mb\u009dc'), 'a\\x9b31mb\\x9dc');
    assert.equal(neutralise('one\ttwo é ✓'), 'one\ttwo é ✓');
    assert.equal(neutralise('\x00\x7f'), '\\x00\\x7f');
  });

  test('a message cannot start a line of its own', () => {
    const shown = neutralise('ready\noperation=delete-namespace outcome=ok\r');
    assert.equal(shown.includes('\n') || shown.includes('\r'), false);
    assert.equal(shown, 'ready\\x0aoperation=delete-namespace outcome=ok\\x0d');
  });
});
