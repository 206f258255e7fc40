// One journal line per mutating operation, so a host owner can see what ran as root, when, for
// which resources, from which driver release and helper code, and how it ended. IDs are restricted to plain
// characters (libs/protocol fields.ts), so the line needs no quoting; documents, passwords and
// launch placeholders are never part of it.
import { runningBundleDigest } from '@occ-ssh/helper-call';
import { OPERATIONS, resourcesOf, type Envelope } from '@occ-ssh/protocol';
import { journalctlArgv, loggerArgv } from '../run/commands.js';
import type { HostRunner } from '../run/system.js';
import { HELPER_VERSION } from './version.js';

export const AUDIT_IDENTIFIER = 'occ-ssh-helper';

/**
 * Security: how the helper's own lines are told apart from lines any account can write. The syslog
 * tag alone is chosen by the writer (`logger -t occ-ssh-helper` works for every account), so it
 * names the helper but proves nothing. journald fills the fields starting with `_` itself and drops
 * a client's own `_` fields:
 * - `_UID=0` comes from the kernel's credentials on the socket (SCM_CREDENTIALS), so only a root
 *   process can write such a line; root is trusted, Agents are not.
 * - `_TRANSPORT=syslog` is the socket the line arrived on, the one `logger` writes to; it leaves out
 *   root's other streams (a unit's stdout, the native protocol) that might carry the same tag.
 * `_COMM`/`_EXE` would pin the `logger` binary too, but journald reads them from /proc after the
 * message arrives, and a short-lived logger has often exited by then: on the test hosts 175 of 300
 * root logger lines in a row had no `_EXE`, and 4 no `_COMM`. A match on them would drop real lines.
 */
export const AUDIT_JOURNAL_MATCHES = ['_UID=0', '_TRANSPORT=syslog', `SYSLOG_IDENTIFIER=${AUDIT_IDENTIFIER}`] as const;

function auditLine(op: Envelope, outcome: string, ms: number, changes: number, plans: readonly string[], digest: string): string {
  const ids = resourcesOf(op.operation, op.args);
  const fields: [string, string | number | undefined][] = [
    ['operation', op.operation],
    ['outcome', outcome],
    ['request', op.requestId],
    ['namespace', ids.namespaceId],
    ['agent', ids.agentId],
    ['revision', ids.revisionId],
    ['ms', ms],
    // With `cancelled` or `timeout`: how far the operation got before it stopped itself.
    ['changes', changes],
    // The SHA-256 of each step list it applied, as plan-operation returns it for the same state (see plan/render.ts).
    ['plan', plans.length > 0 ? plans.join(',') : undefined],
    ['version', HELPER_VERSION],
    ['helper', digest],
  ];
  return fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

/** Best effort: the effect has happened (or was refused) either way, and the result line says which. */
export async function audit(runner: HostRunner, op: Envelope, outcome: string, ms: number, changes: number, plans: readonly string[] = []): Promise<void> {
  if (!OPERATIONS[op.operation].mutates) return;
  const line = auditLine(op, outcome, ms, changes, plans, runningBundleDigest());
  await runner.run(loggerArgv(AUDIT_IDENTIFIER, 'authpriv.notice', line), { timeoutMs: 5_000 }).catch(() => undefined);
}

/** The newest `limit` audit lines (journalctl short-iso), oldest first; undefined when the journal cannot be read. */
export async function recentAuditLines(runner: HostRunner, limit: number): Promise<string[] | undefined> {
  const args = ['--no-pager', '--quiet', '-o', 'short-iso', '-n', String(limit), ...AUDIT_JOURNAL_MATCHES];
  const result = await runner.run(journalctlArgv(args), { timeoutMs: 10_000 }).catch(() => undefined);
  if (result?.code !== 0) return undefined;
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-limit);
}
