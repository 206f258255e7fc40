// Field-level rules shared by every operation: what an ID, a path or an account prefix may be.
import * as z from 'zod/mini';

/**
 * Security: IDs end up in marker files, unit-file comments and log lines; they never reach a
 * shell or a path unhashed, but a newline or NUL could still forge a header line.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
export const resourceId = z.string().check(z.regex(ID_PATTERN, 'expected 1-128 characters of letters, digits and . _ : @ - starting with a letter or digit'));

/** Namespace names select hosts by exact match; the same shape as a DNS label. */
export const NAMESPACE_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const namespaceName = z.string().check(z.regex(NAMESPACE_NAME_PATTERN, 'expected a lower-case DNS label (a-z, 0-9, -; at most 63 characters)'));

/**
 * Security: host paths are interpolated into systemd directives and one remote command line,
 * so only an absolute path of plain characters is accepted: no whitespace, quotes, control
 * characters, shell metacharacters, `%` specifiers or `$` expansions, no `.` or `..` segments.
 */
const SAFE_PATH_PATTERN = /^(?:\/[A-Za-z0-9._+@,=-]+)+$/;
export const MAX_PATH_LENGTH = 1024;

export function safePathProblem(value: string): string | undefined {
  if (!value.startsWith('/')) return 'expected an absolute path';
  if (value === '/') return 'must not be the filesystem root';
  if (value.length > MAX_PATH_LENGTH) return `expected at most ${MAX_PATH_LENGTH} characters`;
  if (/[\s]/.test(value)) return 'must not contain whitespace';
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain control characters';
  if (/["'`]/.test(value)) return 'must not contain quotes';
  if (/[%$]/.test(value)) return 'must not contain systemd or shell expansion syntax (% or $)';
  if (/[;&|<>(){}[\]*?!~#\\^]/.test(value)) return 'must not contain shell metacharacters';
  if (value.split('/').some((part) => part === '.' || part === '..')) return 'must not contain . or .. segments';
  if (value.endsWith('/')) return 'must not end with /';
  if (value.includes('//')) return 'must not contain empty segments (//)';
  if (!SAFE_PATH_PATTERN.test(value)) return 'must use only letters, digits and the characters . _ + @ , = - between slashes';
  return undefined;
}

export const safePath = z.string().check(
  z.superRefine((value, ctx) => {
    const problem = safePathProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
  }),
);

/**
 * Directories the gateway unit's sandbox replaces or hides (ProtectHome=yes, PrivateTmp=true,
 * TemporaryFileSystem=/dev/shm): a program or Agent directory under one of them could never start.
 */
const SANDBOX_HIDDEN_DIRS = ['/home', '/root', '/run/user', '/tmp', '/var/tmp', '/dev/shm'] as const;

export function sandboxHiddenProblem(path: string): string | undefined {
  const hidden = SANDBOX_HIDDEN_DIRS.find((dir) => path === dir || path.startsWith(`${dir}/`));
  return hidden && `is under ${hidden}, which the gateway unit's sandbox hides from the gateway`;
}

/** A host path the gateway itself must reach: safe, and not inside a directory its sandbox hides. */
export const gatewayHostPath = z.string().check(
  z.superRefine((value, ctx) => {
    const problem = safePathProblem(value) ?? sandboxHiddenProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
  }),
);

/** Account-name prefix: the rules of shadow's useradd for system names, lower case. */
const RUNTIME_USER_PATTERN = /^[a-z_][a-z0-9_-]{0,31}$/;
export const runtimeUser = z.string().check(
  z.regex(RUNTIME_USER_PATTERN, 'expected a lower-case account name prefix starting with a letter or _'),
  z.refine((value) => value !== 'root', 'must not be root'),
);

export const gatewayPort = z.int('expected an integer').check(z.minimum(1024, 'expected at least 1024'), z.maximum(65535, 'expected at most 65535'));

export const portRange = z.strictObject({ start: gatewayPort, end: gatewayPort }).check(z.refine((range) => range.start <= range.end, 'start must not be greater than end'));

/**
 * Where an operator-chosen range of Agent account IDs may lie: useradd's own range for ordinary
 * accounts on Debian (UID_MIN 1000 to UID_MAX 60000), below systemd's reserved IDs (60001 up: homed,
 * dynamic users, nobody) and the subordinate IDs containers map (100000 up by default).
 */
export const ACCOUNT_ID_BOUNDS = { min: 1000, max: 60000 } as const;

const accountId = z
  .int('expected an integer')
  .check(z.minimum(ACCOUNT_ID_BOUNDS.min, `expected at least ${ACCOUNT_ID_BOUNDS.min}`), z.maximum(ACCOUNT_ID_BOUNDS.max, `expected at most ${ACCOUNT_ID_BOUNDS.max}`));

/** The UIDs and GIDs new Agent accounts take, both bounds included. */
export const accountIdRange = z.strictObject({ start: accountId, end: accountId }).check(z.refine((range) => range.start <= range.end, 'start must not be greater than end'));

/** Lines written in SHA-256 hex, as used for configuration hashes. */
export const sha256Hex = z.string().check(z.regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 hex digest'));
