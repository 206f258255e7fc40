// The byte bound of a log page: exact, never a half character, newest lines kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutUtf8, keepNewestWithin, utf8Bytes } from './log-bounds.js';

const keep = (newestFirst: string[], limit: number) =>
  keepNewestWithin(
    newestFirst,
    limit,
    (line) => line,
    (_line, text) => text,
  );

describe('log page byte bound', () => {
  it('cuts at a character boundary, never past the limit', () => {
    assert.equal(cutUtf8('abc', 5), 'abc');
    assert.equal(cutUtf8('a\u00e9b', 2), 'a');
    assert.equal(cutUtf8('\ufffd\ufffd', 4), '\ufffd');
    assert.equal(cutUtf8('\u{1f600}x', 3), '');
    for (let limit = 0; limit < 12; limit++) assert.ok(utf8Bytes(cutUtf8('a\u00e9\u{1f600}\ufffdz', limit)) <= limit);
  });

  it('keeps the newest lines that fit, oldest first, and says what it left out', () => {
    assert.deepEqual(keep(['new', 'mid', 'old'], 9), { lines: ['old', 'mid', 'new'], truncated: false });
    assert.deepEqual(keep(['new', 'mid', 'old'], 8), { lines: ['mid', 'new'], truncated: true });
  });

  it('cuts the newest line when even it alone does not fit', () => {
    assert.deepEqual(keep(['x'.repeat(1024 * 1024), 'old'], 5), { lines: ['xxxxx'], truncated: true });
    assert.deepEqual(keep(['\u00e9\u00e9'], 3), { lines: ['\u00e9'], truncated: true });
  });
});
