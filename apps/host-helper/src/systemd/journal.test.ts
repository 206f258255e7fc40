import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_LOG_BYTES } from '@occ-ssh/protocol';
import { parsePage } from './journal.js';
import { journalArgs } from '../ops/read-logs.js';

const CURSOR = (i: number) => `s=${'a'.repeat(32)};i=${i.toString(16)};b=${'b'.repeat(32)};m=1;t=2;x=3`;
const line = (i: number, message: unknown) => JSON.stringify({ __CURSOR: CURSOR(i), __REALTIME_TIMESTAMP: '1767225600123456', _PID: '42', MESSAGE: message });

describe('journal pages', () => {
  test('entries keep their text, bytes journalctl writes as numbers become text, and the cursor is the last one', () => {
    const page = parsePage([line(1, 'one'), line(2, [0x1b, 0x5b, 0x32, 0x4a]), line(3, null)].join('\n'), false);
    assert.deepEqual(page.entries, [
      { time: '2026-01-01T00:00:00.123456Z', pid: 42, message: 'one' },
      { time: '2026-01-01T00:00:00.123456Z', pid: 42, message: '\x1b[2J' },
      { time: '2026-01-01T00:00:00.123456Z', pid: 42, message: null },
    ]);
    assert.equal(page.cursor, CURSOR(3));
    assert.equal(page.truncated, false);
  });

  test('text past MAX_LOG_BYTES is left out and said; a line cut by the raw bound is dropped', () => {
    const big = 'x'.repeat(4000);
    const count = Math.ceil(MAX_LOG_BYTES / big.length) + 5;
    const text = Array.from({ length: count }, (_, i) => line(i, big)).join('\n');
    const page = parsePage(text, false, 'oldest');
    assert.equal(page.truncated, true);
    assert.ok(page.entries.reduce((n, e) => n + (e.message?.length ?? 0), 0) <= MAX_LOG_BYTES);
    assert.equal(page.cursor, CURSOR(page.entries.length - 1), 'the cursor is the last entry returned, so a follow-up continues there');
    const newest = parsePage(text, false, 'newest');
    assert.equal(newest.entries.length, page.entries.length);
    assert.equal(newest.cursor, CURSOR(count - 1), 'a first look ends at the newest entry');
    const cut = parsePage(`${line(1, 'whole')}\n${line(2, 'cut').slice(0, 20)}`, true);
    assert.deepEqual(
      cut.entries.map((e) => e.message),
      ['whole'],
    );
    assert.equal(cut.truncated, true);
  });

  test("journalctl is asked by the fields journald stamps, never by the writer's own tag", () => {
    const args = journalArgs('openclaw-enterprise-gateway-0123456789ab.service', 990, 50, 1767225600, CURSOR(7));
    assert.ok(args.includes('_SYSTEMD_UNIT=openclaw-enterprise-gateway-0123456789ab.service'));
    assert.ok(args.includes('_UID=990'));
    assert.ok(args.includes('--namespace=+openclaw-enterprise'), 'the gateways’ namespace, and the system journal an earlier unit logged into');
    assert.ok(args.includes('--lines=50') && args.includes('--since=@1767225600') && args.includes(`--after-cursor=${CURSOR(7)}`));
    assert.equal(
      args.some((a) => /SYSLOG_IDENTIFIER|^-t$|--identifier/.test(a)),
      false,
    );
  });
});
