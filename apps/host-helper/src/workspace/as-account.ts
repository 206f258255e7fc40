// File work inside an Agent's workspace, done by a child process running as the Agent's own account.
// Security: the workspace is the Agent's to shape, so root never opens, writes or renames anything in
// it. No link the Agent planted is followed, at any component of any path (each is walked from / by
// descriptor, O_NOFOLLOW at every step): this child runs outside the Agent's sandbox, so a link
// followed here could leave a file of the UID where the sandbox never lets the Agent write.
import { ComputeError } from '@occ-ssh/protocol';
import { asAccountArgv, nodeEvalArgv, type AccountIds } from '../run/commands.js';
import { PROGRAM_ENV, type HostRunner } from '../run/system.js';

export type { AccountIds } from '../run/commands.js';

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
const fail = (code) => Object.assign(new Error(code), { code });
// Security: every path is walked from / one name at a time, each opened O_NOFOLLOW beneath the descriptor
// of the one before (the /proc/self/fd/N/name form is openat(N, name)): no link is followed at any component.
const at = (fd, name) => '/proc/self/fd/' + fd + '/' + name;
// O_PATH (Linux; Node does not name it): the root's directories are search-only to the account, and a
// step through them needs no right to read them. Only the directory worked in is opened for reading.
const O_PATH = 0o10000000;
function names(path) {
  const parts = path.split('/');
  if (parts[0] !== '' || parts.slice(1).some((p) => p === '' || p === '.' || p === '..')) throw fail('EINVAL');
  return parts.slice(1);
}
function openDirs(parts, readable) {
  let fd = fs.openSync('/', (readable && parts.length === 0 ? O_RDONLY : O_PATH) | O_DIRECTORY);
  parts.forEach((part, i) => {
    const mode = readable && i === parts.length - 1 ? O_RDONLY : O_PATH;
    let next;
    try { next = fs.openSync(at(fd, part), mode | O_DIRECTORY | O_NOFOLLOW); } finally { fs.closeSync(fd); }
    fd = next;
  });
  return fd;
}
// The descriptor of the path's parent and the path's last name; the caller closes it.
function parentOf(path) { const parts = names(path); return { fd: openDirs(parts.slice(0, -1), false), name: parts[parts.length - 1] }; }
function withParent(path, use) { const p = parentOf(path); try { return use(p.fd, p.name); } finally { fs.closeSync(p.fd); } }
function kindOf(path) {
  try { return withParent(path, (fd, name) => fs.lstatSync(at(fd, name)).isDirectory() ? 'dir' : 'other'); }
  catch (e) { if (e.code === 'ENOENT') return 'absent'; if (e.code === 'ELOOP' || e.code === 'ENOTDIR') return 'other'; throw e; }
}
function entry(dfd, name) {
  let fd;
  try { fd = fs.openSync(at(dfd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK); } catch (e) { if (e.code === 'ENOENT') return { kind: 'absent' }; if (e.code === 'ELOOP') return { kind: 'other' }; throw e; }
  try {
    const s = fs.fstatSync(fd);
    if (!s.isFile() || s.size > MAX) return { kind: 'other' };
    return { kind: 'file', sha256: crypto.createHash('sha256').update(fs.readFileSync(fd)).digest('hex') };
  } finally { fs.closeSync(fd); }
}
function inspect(r) {
  const dir = kindOf(r.dir), files = {};
  if (dir === 'dir') {
    const dfd = openDirs(names(r.dir), true);
    try { for (const name of r.names) files[name] = entry(dfd, name); } finally { fs.closeSync(dfd); }
  }
  return { dir, files };
}
function write(r) {
  if (r.mkdir) withParent(r.dir, (fd, name) => { try { fs.mkdirSync(at(fd, name), { mode: 0o700 }); } catch (e) { if (e.code !== 'EEXIST') throw e; } });
  // A link at any component (O_DIRECTORY with O_NOFOLLOW) fails ENOTDIR.
  const dfd = openDirs(names(r.dir), true);
  try {
    // A temp of ours that a killed write left (its name is ours and the document's): unlink never follows a link.
    const swept = new Set(r.sweep || []);
    for (const n of fs.readdirSync(at(dfd, '.'))) {
      const m = /^\.(.+)\.occ-[0-9a-f]{12}$/.exec(n);
      if (m && swept.has(m[1])) { try { fs.unlinkSync(at(dfd, n)); } catch (e) { if (e.code !== 'ENOENT' && e.code !== 'EISDIR') throw e; } }
    }
    for (const f of r.files) {
      const temp = '.' + f.name + '.occ-' + crypto.randomBytes(6).toString('hex');
      const fd = fs.openSync(at(dfd, temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try { fs.writeFileSync(fd, f.content); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
      fs.renameSync(at(dfd, temp), at(dfd, f.name));
    }
    fs.fsyncSync(dfd);
  } finally { fs.closeSync(dfd); }
  return {};
}
function remove(r) {
  try { withParent(r.dir, (fd, name) => fs.rmSync(at(fd, name), { recursive: true, force: true })); }
  catch (e) { if (e.code !== 'ENOENT') throw e; }
  return {};
}
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

/**
 * Security: each request's own bound. A real one (documents of at most a MiB each) ends in well under
 * a second; a `remove` of a scratch tree the Agent filled may not, and is cut here to resume at the retry.
 */
const ACCOUNT_CHILD_MS = 30_000;

/** One request to the account program; a failure names the request's directory and the errno, never a document. */
export async function asAccount<T>(runner: HostRunner, nodePath: string, account: AccountIds, request: AccountRequest, signal: AbortSignal): Promise<T> {
  const command = asAccountArgv(account, nodeEvalArgv(nodePath, ACCOUNT_PROGRAM));
  const { code, stdout } = await runner.runChild(command, { env: PROGRAM_ENV, cwd: '/', stdin: JSON.stringify(request), signal, output: true, timeoutMs: ACCOUNT_CHILD_MS });
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
