// File work inside an Agent's workspace, done by a child process running as the Agent's own account.
// Security: the workspace is the Agent's to shape, so root never opens, writes or renames anything in
// it. A link the Agent planted can only lead this child where the Agent could already write, and
// every open refuses to follow a link anyway (O_NOFOLLOW, O_EXCL temps, rename over the name).
import { ComputeError } from '@occ-ssh/protocol';
import { asAccountArgv, nodeEvalArgv, type AccountIds } from '../commands.js';
import { PROGRAM_ENV, type HostRunner } from '../system.js';

export type { AccountIds } from '../commands.js';

type EntryKind = { kind: 'absent' } | { kind: 'other' } | { kind: 'file'; sha256: string };
export interface Inspection {
  dir: 'absent' | 'dir' | 'other';
  files: Record<string, EntryKind>;
}

export type AccountRequest =
  | { op: 'inspect'; dir: string; names: readonly string[] }
  | { op: 'write'; dir: string; files: readonly { name: string; content: string }[]; mkdir?: boolean; sweep?: readonly string[] }
  | { op: 'remove'; dir: string };

/**
 * The child's whole program, fixed text: the request (documents included) comes on its stdin, never
 * on argv; it answers with one JSON line of kinds and digests, never contents.
 */
export const ACCOUNT_PROGRAM = String.raw`'use strict';
const fs = require('fs'), crypto = require('crypto');
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants;
const MAX = 1048576;
function kindOf(path) { try { return fs.lstatSync(path).isDirectory() ? 'dir' : 'other'; } catch (e) { if (e.code === 'ENOENT') return 'absent'; throw e; } }
function entry(path) {
  let fd;
  try { fd = fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK); } catch (e) { if (e.code === 'ENOENT') return { kind: 'absent' }; if (e.code === 'ELOOP') return { kind: 'other' }; throw e; }
  try {
    const s = fs.fstatSync(fd);
    if (!s.isFile() || s.size > MAX) return { kind: 'other' };
    return { kind: 'file', sha256: crypto.createHash('sha256').update(fs.readFileSync(fd)).digest('hex') };
  } finally { fs.closeSync(fd); }
}
function inspect(r) {
  const dir = kindOf(r.dir), files = {};
  if (dir === 'dir') for (const name of r.names) files[name] = entry(r.dir + '/' + name);
  return { dir, files };
}
function write(r) {
  if (r.mkdir) { try { fs.mkdirSync(r.dir, { mode: 0o700 }); } catch (e) { if (e.code !== 'EEXIST') throw e; } }
  if (kindOf(r.dir) !== 'dir') throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  // A temp of ours that a killed write left (its name is ours and the document's): unlink never follows a link.
  const swept = new Set(r.sweep || []);
  for (const n of fs.readdirSync(r.dir)) {
    const m = /^\.(.+)\.occ-[0-9a-f]{12}$/.exec(n);
    if (m && swept.has(m[1])) { try { fs.unlinkSync(r.dir + '/' + n); } catch (e) { if (e.code !== 'ENOENT' && e.code !== 'EISDIR') throw e; } }
  }
  for (const f of r.files) {
    const temp = r.dir + '/.' + f.name + '.occ-' + crypto.randomBytes(6).toString('hex');
    const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try { fs.writeFileSync(fd, f.content); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
    fs.renameSync(temp, r.dir + '/' + f.name);
  }
  const dfd = fs.openSync(r.dir, O_RDONLY | O_DIRECTORY);
  try { fs.fsyncSync(dfd); } finally { fs.closeSync(dfd); }
  return {};
}
function remove(r) { fs.rmSync(r.dir, { recursive: true, force: true }); return {}; }
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  let out;
  try { const r = JSON.parse(input); out = r.op === 'inspect' ? inspect(r) : r.op === 'write' ? write(r) : remove(r); }
  catch (e) { out = { error: String((e && e.code) || 'error') }; process.exitCode = 1; }
  process.stdout.write(JSON.stringify(out) + '\n');
});
`;

/** One request to the account program; a failure names the request's directory and the errno, never a document. */
export async function asAccount<T>(runner: HostRunner, nodePath: string, account: AccountIds, request: AccountRequest, signal: AbortSignal): Promise<T> {
  const command = asAccountArgv(account, nodeEvalArgv(nodePath, ACCOUNT_PROGRAM));
  const { code, stdout } = await runner.runChild(command, { env: PROGRAM_ENV, cwd: '/', stdin: JSON.stringify(request), signal, output: true });
  let answer: unknown;
  try {
    answer = JSON.parse(stdout);
  } catch {
    answer = null;
  }
  if (code !== 0 || typeof answer !== 'object' || answer === null || 'error' in answer) {
    const errno = typeof answer === 'object' && answer !== null && 'error' in answer ? String((answer as { error: unknown }).error).slice(0, 40) : `exit code ${code}`;
    throw new ComputeError('host-command', `workspace ${request.op} as the Agent's account failed in ${request.dir} (${errno.replace(/[^A-Za-z0-9 _-]/g, '?')})`, { path: request.dir });
  }
  return answer as T;
}
