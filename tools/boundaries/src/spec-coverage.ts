// The citations of docs/spec-coverage.md (`file` › test name) checked against the test files:
// a proof is only as good as the test it names, so each cited name must be one the file declares.

export interface CitationProblem {
  /** Line of the doc the citation starts on (1-based). */
  line: number;
  file: string;
  /** The cited text where a name was expected; empty when the file itself is missing. */
  cited: string;
}

/** Reads a workspace file by its path from the workspace root; undefined when there is none. */
export type ReadFile = (path: string) => string | undefined;

const CALL = /\b(?:describe|suite|test|it)(?:\.(?:only|skip|todo))?\(\s*(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"|`((?:\\.|[^`\\])*)`)?/g;
const LITERAL = /'((?:\\.|[^'\\\n])*)'|"((?:\\.|[^"\\\n])*)"|`((?:\\.|[^`\\])*)`/g;
// What may follow a cited name: the end, a note in parentheses, the next citation or the prose.
const AFTER_NAME = '(?=$| \\(| ›|[;.,*])';
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const unescape = (text: string) => text.replace(/\\(.)/g, '$1');

function pattern([, single, double, template]: RegExpMatchArray): RegExp {
  const body =
    template === undefined
      ? escapeRegExp(unescape(single ?? double ?? ''))
      : template
          .split(/\$\{[^}]*\}/)
          .map((part) => escapeRegExp(unescape(part)))
          .join('[^;()›]+?');
  return new RegExp(body + AFTER_NAME, 'y');
}

/**
 * One sticky pattern per suite or test name the file declares; `${…}` in a template stands for any
 * text. A file that names its tests from a table of cases (`it(refusal.name, …)`) may declare any
 * of its string literals as a name.
 */
function testNamePatterns(source: string): RegExp[] {
  const calls = [...source.matchAll(CALL)];
  const computed = calls.some((call) => call[1] === undefined && call[2] === undefined && call[3] === undefined);
  const declared = computed ? [...source.replace(/^\s*\/\/.*$/gm, '').matchAll(LITERAL)] : calls;
  return declared.map(pattern);
}

/** Length of the longest declared name that stands at `at` in `text`, or 0. */
function nameAt(text: string, at: number, patterns: readonly RegExp[]): number {
  let longest = 0;
  for (const pattern of patterns) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match && match[0].length > longest) longest = match[0].length;
  }
  return longest;
}

/** Index just past the parenthesis that opens at `at`. */
function pastParenthesis(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i += 1) {
    if (text[i] === '(') depth += 1;
    if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The cited text from `at` up to where a name would end at the latest, for the report. */
const citedFrom = (text: string, at: number) =>
  text
    .slice(at)
    .split(/;| \(| ›/)[0]!
    .trim();

const LISTED = /^, `([^`]+)`/;

/** Checks the names after one `file`: `› name (note); › name › nested name …`. */
function checkNames(text: string, patterns: readonly RegExp[]): string | undefined {
  let i = 0;
  while (text.startsWith(' › ', i)) {
    i += 3;
    const length = nameAt(text, i, patterns);
    if (length === 0) return citedFrom(text, i);
    i += length;
    if (text.startsWith(' (', i)) i = pastParenthesis(text, i + 1);
    // `› case a, `case b`, `case c``: each listed case is a name of the same file.
    for (let listed = LISTED.exec(text.slice(i)); listed && !listed[1]!.endsWith('.test.ts'); listed = LISTED.exec(text.slice(i))) {
      if (nameAt(listed[1]!, 0, patterns) !== listed[1]!.length) return listed[1];
      i += listed[0].length;
    }
    if (text.startsWith('; › ', i)) i += 1;
  }
  return undefined;
}

/** The doc as blocks: each table row alone, each paragraph joined into one line. */
function blocks(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let paragraph: { line: number; text: string } | undefined;
  markdown.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('|') || line.startsWith('#') || line.startsWith('```')) paragraph = undefined;
    if (line === '') return;
    if (line.startsWith('|') || line.startsWith('#') || line.startsWith('```')) return void out.push({ line: index + 1, text: line });
    if (paragraph) paragraph.text += ` ${line}`;
    else out.push((paragraph = { line: index + 1, text: line }));
  });
  return out;
}

const TEST_FILE = /`((?:[\w.-]+\/)*[\w.-]+\.test\.ts)`/g;

/**
 * Every citation of a test file and test name in the doc that does not hold. A file given without
 * a folder is in the folder the paragraph above its table names (`apps/…/src/`). In a table whose
 * columns are `file | test | …`, the test cell is one whole name.
 */
export function checkSpecCoverage(markdown: string, read: ReadFile): CitationProblem[] {
  const problems: CitationProblem[] = [];
  let folder = '';
  let fileTestTable = false;
  for (const { line, text } of blocks(markdown)) {
    if (!text.startsWith('|')) folder = /`((?:[\w.-]+\/)+)`/.exec(text)?.[1] ?? folder;
    if (text.startsWith('| file | test |')) fileTestTable = true;
    else if (!text.startsWith('|')) fileTestTable = false;
    for (const match of text.matchAll(TEST_FILE)) {
      const file = match[1]!.includes('/') ? match[1]! : `${folder}${match[1]}`;
      const source = read(file);
      if (source === undefined) {
        problems.push({ line, file, cited: '' });
        continue;
      }
      const end = match.index + match[0].length;
      // A `file | test` row names its test in the next cell, whole.
      const cited = fileTestTable && text.startsWith(' | ', end) ? ` › ${text.slice(end + 3).split(' | ')[0]}` : text.slice(end);
      const wrong = checkNames(cited.split(' | ')[0]!, testNamePatterns(source));
      if (wrong !== undefined) problems.push({ line, file, cited: wrong });
    }
  }
  return problems;
}
