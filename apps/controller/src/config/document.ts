// Parses the Installation YAML once and answers "which line is this key on?" for every problem.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type ErrorCode } from 'yaml';
import { describeValue, type KeyPath, type Problem } from './errors.js';

/** Plain words for YAML syntax errors; yaml's own messages can quote source text, these never do. */
const SYNTAX: { readonly [C in ErrorCode]: string } = {
  ALIAS_PROPS: 'an alias cannot carry an anchor or a tag',
  BAD_ALIAS: 'an alias is invalid',
  BAD_DIRECTIVE: 'a directive is invalid',
  BAD_DQ_ESCAPE: 'a double-quoted string has an invalid escape sequence',
  BAD_INDENT: 'the indentation is wrong',
  BAD_PROP_ORDER: 'anchors and tags are in the wrong place',
  BAD_SCALAR_START: 'a plain value starts with a reserved character',
  BLOCK_AS_IMPLICIT_KEY: 'a block collection is used as a key',
  BLOCK_IN_FLOW: 'a block collection is nested inside a flow collection',
  DUPLICATE_KEY: 'a key is repeated in the same mapping',
  IMPOSSIBLE: 'the input cannot be parsed',
  KEY_OVER_1024_CHARS: 'a key is longer than 1024 characters',
  MISSING_CHAR: 'a required character is missing',
  MULTILINE_IMPLICIT_KEY: 'a key spans more than one line',
  MULTIPLE_ANCHORS: 'a node has more than one anchor',
  MULTIPLE_DOCS: 'the file holds more than one YAML document',
  MULTIPLE_TAGS: 'a node has more than one tag',
  NON_STRING_KEY: 'a key is not a string',
  RESOURCE_EXHAUSTION: 'aliases expand beyond the allowed size',
  TAB_AS_INDENT: 'a tab is used for indentation',
  TAG_RESOLVE_FAILED: 'a tag cannot be resolved',
  UNEXPECTED_TOKEN: 'an unexpected token',
  BAD_COLLECTION_TYPE: 'a collection tag does not fit its collection',
};

/** Where a problem points: at the key itself (unknown or invalid keys) or at its value. */
type Anchor = 'key' | 'value';

export interface ProblemOptions {
  /** Default `value`; a problem at a key never shows a value (the key is in the path). */
  readonly at?: Anchor;
  /** Which offending values to show: scalars (default), also collections by kind, or none. */
  readonly show?: 'scalars' | 'all' | 'none';
}

export interface InstallationDocument {
  /** The whole document as plain data. */
  readonly value: unknown;
  /** A problem at `path`, with the offending scalar and the line of its node when there is one. */
  problem(path: KeyPath, reason: string, options?: ProblemOptions): Problem;
}

export type ReadResult = { readonly ok: true; readonly document: InstallationDocument } | { readonly ok: false; readonly problems: Problem[] };

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The plain value at `path`, or undefined; only own keys count. */
export function valueAt(root: unknown, path: KeyPath): unknown {
  let value = root;
  for (const segment of path) {
    if (Array.isArray(value) && typeof segment === 'number') value = value[segment];
    else if (isMapping(value) && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

/** The source offset of the scalar at `path`, else of the nearest key on the way to it. */
function offsetOf(doc: Document, path: KeyPath, at: Anchor): number | undefined {
  let node: unknown = doc.contents;
  let nearest: number | undefined = doc.contents?.range?.[0];
  for (const [index, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) return nearest;
      const keyOffset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      nearest = keyOffset ?? nearest;
      if (at === 'key' && index === path.length - 1) return nearest;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
    } else {
      return nearest;
    }
  }
  // A scalar is cited where it is written; a collection by the key that introduces it.
  return isScalar(node) ? (node.range?.[0] ?? nearest) : nearest;
}

/** Parses with positions kept; YAML syntax errors come back as document-level problems. */
export function readDocument(text: string): ReadResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const place = (offset: number | undefined) => (offset === undefined ? {} : { offset, line: lines.linePos(offset).line });
  // Only the first syntax error: once the parser has lost its place, later ones are echoes of it.
  const [syntax] = doc.errors;
  if (syntax) {
    return { ok: false, problems: [{ path: [], reason: `invalid YAML: ${SYNTAX[syntax.code]}`, ...place(syntax.pos[0]) }] };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch {
    return { ok: false, problems: [{ path: [], reason: 'invalid YAML: an alias is unresolved or expands beyond the allowed size' }] };
  }
  const problem = (path: KeyPath, reason: string, options: ProblemOptions = {}): Problem => {
    const at = options.at ?? 'value';
    const show = at === 'key' ? 'none' : (options.show ?? 'scalars');
    const current = show === 'none' ? undefined : valueAt(value, path);
    const scalar = current === null || (typeof current !== 'object' && current !== undefined);
    const shown = scalar || show === 'all' ? describeValue(current) : undefined;
    return { path, reason, ...(shown === undefined ? {} : { shown }), ...place(offsetOf(doc, path, at)) };
  };
  return { ok: true, document: { value, problem } };
}
