// Configuration problems, how each one reads, and the single ComputeError that reports them all.
import { ComputeError, issuePath } from '@occ-ssh/protocol';

export type KeyPath = readonly (string | number)[];

/** One refused setting: where it is, why, what was written (a scalar only) and where in the file. */
export interface Problem {
  readonly path: KeyPath;
  readonly reason: string;
  /** The offending value as shown to the operator (already quoted and truncated). */
  readonly shown?: string;
  /** 1-based line of the node the problem points at. */
  readonly line?: number;
  /** Source offset of that node: orders problems as they appear in the document. */
  readonly offset?: number;
}

/** How a problem about the document as a whole names its place. */
const DOCUMENT_LABEL = 'Installation document';

const MAX_SHOWN_CHARACTERS = 60;
const MAX_LISTED_PROBLEMS = 50;
const PLAIN_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** Cuts a rendered value to about 60 characters; a trailing … marks the cut. */
export function truncate(text: string, limit = MAX_SHOWN_CHARACTERS): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/**
 * The dotted path from the Installation root, e.g. `drivers.compute.configuration.hosts.stable.port`.
 * Security: a key that is not a plain word (a dot, a space, a newline) is JSON-quoted in brackets,
 * so a hostile key can neither forge another path nor break the one-problem-per-line message.
 */
export function renderKeyPath(path: KeyPath): string {
  if (path.length === 0) return DOCUMENT_LABEL;
  return issuePath(path.map((segment) => (typeof segment === 'number' || PLAIN_SEGMENT.test(segment) ? segment : `[${truncate(JSON.stringify(segment))}]`)));
}

/** A scalar as the operator wrote it: strings JSON-quoted, everything truncated; collections by kind. */
export function describeValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return truncate(JSON.stringify(value));
  if (value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return truncate(String(value));
  }
  return Array.isArray(value) ? 'a list' : 'a mapping';
}

export function formatProblem(problem: Problem): string {
  const shown = problem.shown === undefined ? '' : `, got ${problem.shown}`;
  const line = problem.line === undefined ? '' : ` (line ${problem.line})`;
  return `${renderKeyPath(problem.path)}: ${problem.reason}${shown}${line}`;
}

/** Document order; problems without a position keep their relative order at the end. */
function sortProblems(problems: readonly Problem[]): Problem[] {
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) => (a.problem.offset ?? Infinity) - (b.problem.offset ?? Infinity) || a.index - b.index)
    .map(({ problem }) => problem);
}

/**
 * The one permanent `configuration` error for a refused Installation: every problem on its own
 * line in document order, `details.key` naming the first one (absent when it is the document).
 */
export function configurationError(problems: readonly Problem[], file?: string): ComputeError {
  const sorted = sortProblems(problems);
  const listed = sorted.slice(0, MAX_LISTED_PROBLEMS).map(formatProblem);
  if (sorted.length > listed.length) listed.push(`… and ${sorted.length - listed.length} more problems`);
  const first = sorted[0];
  const key = first && first.path.length > 0 ? renderKeyPath(first.path) : undefined;
  return new ComputeError('configuration', listed.join('\n'), {
    ...(key === undefined ? {} : { key }),
    ...(file === undefined ? {} : { path: file }),
  });
}

/** The Installation file could not be read: names the path and the system error code, never contents. */
export function unreadableFileError(file: string, cause: unknown): ComputeError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const why = typeof code === 'string' ? ` (${code})` : '';
  return new ComputeError('configuration', `cannot read the Installation file ${JSON.stringify(file)}${why}`, { path: file }, { cause });
}
