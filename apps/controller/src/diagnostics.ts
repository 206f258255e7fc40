// OCC's prepare-failure diagnostic: a ComputeError as the code, stage and one-line message OCC's
// worker logs (worker.compute-prepare-failed). OCC drops the whole diagnostic when any field is out of format.
import { ComputeError, type ErrorCode } from '@occ-ssh/protocol';

/** What OCC's describePrepareRevisionFailure returns; errorClass and status are left out (see docs/integration.md). */
export interface PrepareFailureDiagnostic {
  readonly code: string;
  readonly stage: string;
  /** Absent when nothing printable is left. */
  readonly message?: string;
}

export const DIAGNOSTIC_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
export const DIAGNOSTIC_STAGE = /^[a-z][a-z0-9_]{0,63}$/;
export const MAX_DIAGNOSTIC_MESSAGE = 256;

/** Exhaustive: a new catalogue code without its OCC code and default stage fails to compile. */
export const DIAGNOSTIC_OF: { readonly [C in ErrorCode]: { readonly code: string; readonly stage: string } } = {
  configuration: { code: 'SSH_CONFIGURATION', stage: 'configuration' },
  ownership: { code: 'SSH_OWNERSHIP', stage: 'ownership' },
  admission: { code: 'SSH_ADMISSION', stage: 'admission' },
  unbound: { code: 'SSH_UNBOUND', stage: 'binding' },
  'host-requirement': { code: 'SSH_HOST_REQUIREMENT', stage: 'host_requirement' },
  'not-ready': { code: 'SSH_NOT_READY', stage: 'readiness' },
  'lock-timeout': { code: 'SSH_LOCK_TIMEOUT', stage: 'host_lock' },
  'host-command': { code: 'SSH_HOST_COMMAND', stage: 'host_command' },
  transport: { code: 'SSH_TRANSPORT', stage: 'transport' },
  timeout: { code: 'SSH_TIMEOUT', stage: 'timeout' },
  cancelled: { code: 'SSH_CANCELLED', stage: 'cancellation' },
  hook: { code: 'SSH_HOOK', stage: 'lifecycle_hook' },
  conflict: { code: 'SSH_CONFLICT', stage: 'conflict' },
  protocol: { code: 'SSH_PROTOCOL', stage: 'protocol' },
  internal: { code: 'SSH_INTERNAL', stage: 'internal' },
  capacity: { code: 'SSH_CAPACITY', stage: 'capacity' },
};

const UNKNOWN = { ...DIAGNOSTIC_OF.internal, message: 'unexpected internal failure' };

/** The step that failed: the helper operation or hook phase in snake case (`prepare_revision`), else the code's default. */
function stageOf(operation: unknown, fallback: string): string {
  if (typeof operation !== 'string') return fallback;
  const stage = operation
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
  return DIAGNOSTIC_STAGE.test(stage) ? stage : fallback;
}

/**
 * Security: messages are secret-free by construction; this still keeps only the first line, only
 * printable ASCII, never an opaque placeholder value (the LAUNCH_ENV_VALUE_PATTERN alphabet), and at
 * most MAX_DIAGNOSTIC_MESSAGE characters.
 */
function diagnosticMessage(message: unknown): string {
  const line = String(message).split(/\r\n|\r|\n/, 1)[0] ?? '';
  return line
    .replace(/[^\x20-\x7e]/g, '?')
    .replace(/opaque-[A-Za-z0-9._~+/=:-]+/g, 'opaque-[redacted]')
    .slice(0, MAX_DIAGNOSTIC_MESSAGE);
}

/** Maps any thrown value to OCC's diagnostic format; anything but a ComputeError gets a fixed, generic one. */
export function describePrepareRevisionFailure(error: unknown): PrepareFailureDiagnostic {
  if (!(error instanceof ComputeError)) return UNKNOWN;
  const known = DIAGNOSTIC_OF[error.code];
  if (!known) return UNKNOWN;
  const message = diagnosticMessage(error.message);
  return { code: known.code, stage: stageOf(error.details.operation, known.stage), ...(message.trim() ? { message } : {}) };
}
