// One journal line per mutating operation, so a host owner can see what ran as root, when, for
// which resources, from which helper code, and how it ended. IDs are restricted to plain
// characters (libs/protocol fields.ts), so the line needs no quoting; documents, passwords and
// launch placeholders are never part of it.
import { OPERATIONS, type Envelope } from '@occ-ssh/protocol';
import { runCommand } from './system.js';

export const AUDIT_IDENTIFIER = 'occ-ssh-helper';
/** Set by the artifact's loader: the SHA-256 of the bundle it decompressed and is running. */
const HELPER_DIGEST_KEY = 'occ-ssh.helper-digest';

function helperDigest(): string {
  const digest = (globalThis as unknown as Record<symbol, unknown>)[Symbol.for(HELPER_DIGEST_KEY)];
  return typeof digest === 'string' && /^[0-9a-f]{64}$/.test(digest) ? digest : 'unbundled';
}

interface Resources {
  namespace?: { id?: string };
  owner?: { namespace?: { id?: string }; agent?: { id?: string } };
  revision?: { id?: string; number?: number };
}

function auditLine(op: Envelope, outcome: string, ms: number, changes: number, digest: string): string {
  const args = op.args as Resources;
  const fields: [string, string | number | undefined][] = [
    ['operation', op.operation],
    ['outcome', outcome],
    ['request', op.requestId],
    ['namespace', args.namespace?.id ?? args.owner?.namespace?.id],
    ['agent', args.owner?.agent?.id],
    ['revision', args.revision?.id],
    ['ms', ms],
    // With `cancelled` or `timeout`: how far the operation got before it stopped itself.
    ['changes', changes],
    ['helper', digest],
  ];
  return fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

/** Best effort: the effect has happened (or was refused) either way, and the result line says which. */
export async function audit(op: Envelope, outcome: string, ms: number, changes: number): Promise<void> {
  if (!OPERATIONS[op.operation].mutates) return;
  await runCommand('logger', ['-t', AUDIT_IDENTIFIER, '-p', 'authpriv.notice', '--', auditLine(op, outcome, ms, changes, helperDigest())], 5_000).catch(() => undefined);
}
