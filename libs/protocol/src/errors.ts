// The closed catalogue of failure codes shared by helper and controller, and the one table that
// decides which of them OCC may retry; zod issues rendered as lines an operator can act on; the one
// exhaustiveness check.
import type * as z from 'zod/mini';

export type Failure = 'permanent' | 'retryable';

export const ERROR_CODES = [
  'configuration',
  'ownership',
  'admission',
  'unbound',
  'host-requirement',
  'not-ready',
  'lock-timeout',
  'host-command',
  'transport',
  'timeout',
  'cancelled',
  'hook',
  'conflict',
  'protocol',
  'internal',
  'capacity',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Exhaustive: adding a code without deciding its verdict fails to compile. */
export const FAILURE_OF: { readonly [C in ErrorCode]: Failure } = {
  // Refused input or settings: retrying the same call cannot succeed.
  configuration: 'permanent',
  ownership: 'permanent',
  admission: 'permanent',
  unbound: 'permanent',
  'host-requirement': 'permanent',
  // Host, transport or timing trouble: the same call may succeed later.
  'not-ready': 'retryable',
  'lock-timeout': 'retryable',
  'host-command': 'retryable',
  transport: 'retryable',
  timeout: 'retryable',
  cancelled: 'retryable',
  hook: 'retryable',
  conflict: 'retryable',
  protocol: 'retryable',
  internal: 'retryable',
  // The host has no port or disk left for another Agent: retryable once the operator frees some.
  capacity: 'retryable',
};

export function failureOf(code: ErrorCode): Failure {
  return FAILURE_OF[code];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Where a failure points: an operator reads these to find what to inspect. */
export interface ErrorDetails {
  host?: string;
  operation?: string;
  path?: string;
  key?: string;
  /** The helper invocation's request ID, as the host's journal and the controller's logs carry it. */
  requestId?: string;
  /** For `transport` failures: why the SSH client could not run the helper (host-key, timeout, ...). */
  transportCause?: string;
}

/** The single error type of the project: a catalogue code, its verdict and a safe message. */
export class ComputeError extends Error {
  readonly code: ErrorCode;
  readonly failure: Failure;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ComputeError';
    this.code = code;
    this.failure = FAILURE_OF[code];
    this.details = details;
  }

  get permanent(): boolean {
    return this.failure === 'permanent';
  }

  get retryable(): boolean {
    return this.failure === 'retryable';
  }
}

/** Anything thrown that is not a ComputeError becomes a retryable `internal` one, never permanent. */
export function toComputeError(error: unknown, details: ErrorDetails = {}): ComputeError {
  if (error instanceof ComputeError) {
    return Object.keys(details).length === 0 ? error : new ComputeError(error.code, error.message, { ...details, ...error.details }, { cause: error.cause });
  }
  return new ComputeError('internal', 'unexpected internal failure', details, { cause: error });
}

/** A zod issue's path as `a.b[0].c`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((part) => (typeof part === 'number' ? `[${part}]` : String(part)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** Renders zod issues as `path: message` lines an operator can act on. */
export function formatIssues(error: z.core.$ZodError, prefix = ''): string {
  return error.issues
    .map((issue) => {
      const path = [prefix, issuePath(issue.path)].filter(Boolean).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/**
 * The one exhaustiveness check: a switch over a closed union ends in `default: return assertNever(x, ...)`,
 * so a new member of the union fails the typecheck until every such switch handles it.
 */
export function assertNever(value: never, what: string): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
