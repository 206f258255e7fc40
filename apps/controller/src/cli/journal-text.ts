// Makes a gateway's log text safe to print: the gateway is assumed compromised, and its text must not
// move the cursor, retitle the window, set a hyperlink or clipboard (OSC 52), start a line of its own,
// reorder what follows it, or hide characters, so that one line cannot pass for another Agent's.

/**
 * Every character that is not shown as itself: controls (Cc: C0 with tab and newline, DEL, C1, which
 * some terminals obey as CSI or OSC), format characters (Cf: the bidi embeddings, overrides, isolates
 * and marks, zero-width space, joiners, word joiner, BOM, soft hyphen, tag characters), the line and
 * paragraph separators (Zl, Zp) and lone surrogates (Cs).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

/** HIDDEN, and the backslash, which must be escaped too or a line could forge an escape it does not contain. */
const HIDDEN_OR_BACKSLASH = new RegExp(`\\\\|${HIDDEN.source}`, 'gu');

/** `\x1b` up to U+00FF, `\u202e` up to U+FFFF, `\u{e0041}` beyond. */
function escaped(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${hex(code, 2)}`;
  if (code <= 0xffff) return `\\u${hex(code, 4)}`;
  return `\\u{${code.toString(16)}}`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/**
 * Each hidden character becomes a visible escape such as \x1b, \x09 or \u202e, so ESC, CSI, OSC, tabs,
 * newlines, bidi overrides and zero-width characters are shown, never obeyed; a backslash becomes \\.
 */
export function neutralise(text: string): string {
  return text.replace(HIDDEN_OR_BACKSLASH, (c) => (c === '\\' ? '\\\\' : escaped(c)));
}

/** A JSON \u escape for one UTF-16 unit. */
function jsonEscaped(unit: string): string {
  return `\\u${hex(unit.charCodeAt(0), 4)}`;
}

/**
 * The same JSON text with every hidden character written as a \u escape. JSON.stringify escapes only
 * U+0000-U+001F and lone surrogates, and leaves DEL, C1 controls, bidi and zero-width characters raw.
 * Outside strings, JSON text holds none of these but its whitespace (tab, CR, LF, which JSON.stringify
 * never leaves inside a string), so that stays and the result is valid JSON with the same value.
 */
export function printableJsonText(json: string): string {
  return json.replace(HIDDEN, (c) => (c === '\t' || c === '\n' || c === '\r' ? c : c.split('').map(jsonEscaped).join('')));
}

/** JSON.stringify for what the CLI prints: the same value, with nothing in it that a terminal obeys or hides. */
export function printableJson(value: unknown): string {
  return printableJsonText(JSON.stringify(value));
}
