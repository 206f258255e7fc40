// The byte bound of a page of log lines, applied the same way on the host and again by the controller.

/** UTF-8 length of a string, as the page is measured. */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The longest prefix of `text` within `limit` UTF-8 bytes, cut at a character boundary (never a half character). */
export function cutUtf8(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = Math.max(0, limit);
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * Keeps the newest lines whose texts fit in `limit` bytes together, oldest first. When even the newest
 * alone does not fit, it is kept cut to `limit` bytes. `truncated` says whether anything was left out or cut.
 */
export function keepNewestWithin<T>(newestFirst: readonly T[], limit: number, text: (line: T) => string, cut: (line: T, text: string) => T): { lines: T[]; truncated: boolean } {
  const kept: T[] = [];
  let used = 0;
  for (const line of newestFirst) {
    const size = utf8Bytes(text(line));
    if (used + size > limit) {
      if (kept.length === 0) kept.push(cut(line, cutUtf8(text(line), limit)));
      return { lines: kept.reverse(), truncated: true };
    }
    used += size;
    kept.push(line);
  }
  return { lines: kept.reverse(), truncated: false };
}
