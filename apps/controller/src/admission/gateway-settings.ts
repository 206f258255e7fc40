// Settings with which the gateway would not start or not answer the driver's plain-HTTP loopback
// readiness check, refused at admission so that they never surface after OCC's commit.
// OCC's SSH Compute reference refuses the same two values before backend work.

/** A setting admission refuses: its key path in the document and why. */
export interface SettingProblem {
  key: string;
  reason: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path`, or undefined where any step is missing or not an object. */
function at(document: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = document;
  for (const step of path) value = isPlainObject(value) ? value[step] : undefined;
  return value;
}

/**
 * `gateway.tls.enabled` must be omitted or false: with TLS the listener speaks only HTTPS, and the
 * readiness check and same-host clients reach it over plain HTTP on loopback.
 */
function tlsProblem(document: Record<string, unknown>): SettingProblem | undefined {
  const tls = at(document, ['gateway', 'tls']);
  if (tls === undefined) return undefined;
  if (!isPlainObject(tls)) return { key: 'gateway.tls', reason: 'expected an object' };
  if (tls.enabled === undefined || tls.enabled === false) return undefined;
  const reason = tls.enabled === true ? 'must be omitted or false: the gateway must serve plain HTTP for its loopback readiness check' : 'expected a boolean (false or omitted)';
  return { key: 'gateway.tls.enabled', reason };
}

const APPROVAL_POLICY = ['plugins', 'entries', 'codex', 'config', 'appServer', 'approvalPolicy'] as const;

/** OpenClaw retired the Codex approval policy "untrusted". */
function approvalPolicyProblem(document: Record<string, unknown>): SettingProblem | undefined {
  if (at(document, APPROVAL_POLICY) !== 'untrusted') return undefined;
  return { key: APPROVAL_POLICY.join('.'), reason: '"untrusted" is retired by OpenClaw; choose another Codex approval policy or remove it' };
}

/** The first refused gateway setting of a document, if any; never echoes a value. */
export function gatewaySettingProblem(document: Record<string, unknown>): SettingProblem | undefined {
  return tlsProblem(document) ?? approvalPolicyProblem(document);
}
