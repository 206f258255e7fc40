// NamespaceEnsureResult.reason: the bounded explanation OCC's worker logs beside a failed Namespace
// pass (its status and audit keep only `failure`). OCC's log keeps a reason only when it is at most
// 256 characters of letters, digits, spaces and `. _ : / @ -`.
import type { ComputeError } from '@occ-ssh/protocol';

export const MAX_NAMESPACE_REASON = 256;
export const NAMESPACE_REASON = /^[A-Za-z0-9 ._:/@-]{1,256}$/;

/**
 * `<catalogue code>: <first line of the message>`, reduced to OCC's reason alphabet: quotes and
 * brackets dropped, any other character outside it a space.
 * Security: ComputeError messages are secret-free by construction and name only this Namespace's own
 * placement (its host, paths under its own directory), never another tenant's marker values; an
 * opaque placeholder is still redacted, as describePrepareRevisionFailure does.
 */
export function namespaceFailureReason(error: ComputeError): string {
  const line = error.message.split(/\r\n|\r|\n/, 1)[0] ?? '';
  const text = `${error.code}: ${line}`
    .replace(/opaque-[A-Za-z0-9._~+/=:-]+/g, 'opaque-redacted')
    .replace(/["'`()[\]{}<>]/g, '')
    .replace(/[^A-Za-z0-9 ._:/@-]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return text.slice(0, MAX_NAMESPACE_REASON).trimEnd();
}
