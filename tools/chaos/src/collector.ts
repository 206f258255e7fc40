// The campaign's read-only checker and step runner on a host. One round trip runs a list of steps:
// `collect` (wait until no helper and no other ssh session is left, test the lock, list the tree,
// units and accounts), `helper` (the built helper with its header argument, the sealed operation and artifact on stdin,
// exactly as the controller runs it) and `sh` (a shell command: tree hashes, planted state).
// The runner is `node --input-type=commonjs -e <script>`, so `pgrep -f '^<node> - '` never
// matches it, only the helpers it or anyone else starts.
import { findResultLine, type ResultLine, type SealedOperation } from '@occ-ssh/protocol';
import type { Listing } from './listing.js';
import { helperArtifact, ROOT, UNIT_DIR, wireFor } from '@occ-ssh/test-support';
import { RUNTIME_USER } from './fixture-args.js';
import type { HostLink } from './ssh.js';

const SCRIPT = String.raw`'use strict';
const fs = require('fs'), cp = require('child_process'), crypto = require('crypto'), http = require('http');
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const ENV = { PATH, LANG: 'C.UTF-8', SYSTEMD_PAGER: '', SYSTEMD_COLORS: '0' };
const run = (file, args) => cp.spawnSync(file, args, { encoding: 'utf8', env: ENV });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let p;

function ppidOf(pid) {
  return Number(fs.readFileSync('/proc/' + pid + '/stat', 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
}
function ancestors() {
  const mine = new Set();
  let pid = process.pid;
  while (pid > 1 && !mine.has(pid)) {
    mine.add(pid);
    try { pid = ppidOf(pid); } catch { break; }
  }
  return mine;
}
// Helpers are '<node> - <argument>' (what pgrep -f '^<node> - ' finds); sessions are sshd children.
function busy(mine) {
  const helpers = [];
  let sessions = 0;
  for (const name of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name) || mine.has(Number(name))) continue;
    let cmd = '', ppid = 0;
    try {
      cmd = fs.readFileSync('/proc/' + name + '/cmdline', 'utf8').replace(/\0/g, ' ');
      ppid = ppidOf(name);
    } catch { continue; }
    if (cmd.startsWith(p.nodePath + ' - ')) helpers.push(name + ' ' + cmd.slice(0, 80));
    else if (/^sshd(-session)?: /.test(cmd) && ppid !== 1 && !/listener/.test(cmd)) sessions += 1;
  }
  return { helpers, sessions };
}
async function quiet(o) {
  const started = Date.now(), mine = ancestors();
  let calm = 0, last = { helpers: [], sessions: 0 };
  while (Date.now() - started < o.waitMs) {
    last = busy(mine);
    calm = last.helpers.length === 0 && (last.sessions === 0 || !o.waitSessions) ? calm + 1 : 0;
    // Confirmed the way an operator would: pgrep -f '^<node> - ' finds nothing (exit 1).
    if (calm >= 2 && run('pgrep', ['-f', '^' + p.nodePath + ' - ']).status !== 1) calm = 0;
    if (calm >= 2 || !o.wait) return { waitedMs: Date.now() - started, timedOut: false, helpers: [] };
    await sleep(100);
  }
  return { waitedMs: Date.now() - started, timedOut: true, helpers: last.helpers };
}
async function lock() {
  const started = Date.now(), path = p.root + '/.compute-lock';
  if (!fs.existsSync(path)) return { free: true, waitedMs: 0 };
  for (let i = 0; i < 30; i++) {
    if (run('flock', ['--nonblock', path, 'true']).status === 0) return { free: true, waitedMs: Date.now() - started };
    await sleep(100);
  }
  return { free: false, waitedMs: Date.now() - started };
}
function kind(st) { return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other'; }
function walk(base, rel, out, privateDepth) {
  let names;
  try { names = fs.readdirSync(base + (rel ? '/' + rel : '')).sort(); } catch { return; }
  for (const name of names) {
    const r = rel ? rel + '/' + name : name, full = base + '/' + r;
    let st;
    try { st = fs.lstatSync(full); } catch { continue; }
    const e = { path: r, type: kind(st), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, size: st.size };
    if (e.type === 'link') { try { e.target = fs.readlinkSync(full); } catch {} }
    const inside = privateDepth > 0 || name === 'home' || name === 'state';
    if (e.type === 'file' && !inside && name.endsWith('.json') && st.size < 200000) { try { e.text = fs.readFileSync(full, 'utf8'); } catch {} }
    if (e.type === 'file' && name === 'openclaw.json') { try { e.sha256 = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex'); } catch {} }
    out.push(e);
    if (e.type === 'dir' && out.length < 20000) walk(base, r, out, inside ? privateDepth + 1 : 0);
  }
}
function temps(dir, out) {
  let names;
  try { names = fs.readdirSync(dir); } catch { return; }
  for (const name of names) {
    const full = dir + '/' + name;
    if (name.includes('.tmp-')) out.push(full);
    try { if (fs.lstatSync(full).isDirectory()) temps(full, out); } catch {}
  }
}
function units() {
  let names = [];
  try { names = fs.readdirSync(p.unitDir).filter((n) => n.startsWith('openclaw-enterprise-gateway-') && n.endsWith('.service')).sort(); } catch {}
  const states = {};
  if (names.length > 0) {
    const out = run('systemctl', ['show', '--property=Id,ActiveState,UnitFileState', ...names]).stdout || '';
    for (const block of out.split('\n\n')) {
      const f = Object.fromEntries(block.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      if (f.Id) states[f.Id] = f;
    }
  }
  return names.map((name) => {
    const full = p.unitDir + '/' + name, st = fs.lstatSync(full);
    let head = '';
    if (st.isFile()) head = fs.readFileSync(full, 'utf8').split('\n').slice(0, 3).join('\n');
    const s = states[name] || {};
    return { name, type: kind(st), uid: st.uid, head, activeState: s.ActiveState || 'unknown', unitFileState: s.UnitFileState || 'unknown' };
  });
}
// The account databases of the host (files: the test hosts use no other NSS source).
function accounts(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith(p.user + '-')).map((l) => {
    const f = l.split(':');
    return file === '/etc/passwd' ? { name: f[0], uid: Number(f[2]), gid: Number(f[3]) } : { name: f[0], gid: Number(f[2]) };
  });
}
function probe(port) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/readyz', timeout: 1500 }, (res) => { res.resume(); resolve(res.statusCode === 200); });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
async function probeUntil(port, tries) {
  for (let i = 0; i < tries; i++) { if (await probe(port)) return true; await sleep(500); }
  return false;
}
// Every served.json whose gateway unit is active must answer /readyz (a gateway may still be
// starting after a reboot, so each gets a few seconds).
async function servedReady(entries, unitList) {
  const out = {};
  for (const e of entries) {
    if (!/^namespaces\/[0-9a-f]{12}\/agents\/[0-9a-f]{12}\/served\.json$/.test(e.path) || !e.text) continue;
    let served;
    try { served = JSON.parse(e.text); } catch { continue; }
    const unit = unitList.find((u) => u.name === 'openclaw-enterprise-gateway-' + e.path.split('/')[3] + '.service');
    if (!unit || unit.activeState !== 'active' || typeof served.port !== 'number') continue;
    out[served.port] = await probeUntil(served.port, 20);
  }
  return out;
}
// /readyz of every Agent whose unit is active (the convergence check of an activation).
async function activeReady(entries, unitList) {
  const out = {};
  for (const e of entries) {
    if (!/^namespaces\/[0-9a-f]{12}\/agents\/[0-9a-f]{12}\/agent\.json$/.test(e.path) || !e.text) continue;
    let marker;
    try { marker = JSON.parse(e.text); } catch { continue; }
    const unit = unitList.find((u) => u.name === 'openclaw-enterprise-gateway-' + e.path.split('/')[3] + '.service');
    if (unit && unit.activeState === 'active' && typeof marker.port === 'number') out[marker.port] = await probeUntil(marker.port, 6);
  }
  return out;
}
async function collect(o) {
  const q = await quiet(o);
  const l = await lock();
  const entries = [];
  walk(p.root, '', entries, 0);
  const unitTemps = [];
  temps(p.unitDir, unitTemps);
  const unitList = units();
  return { root: p.root, unitDir: p.unitDir, quiet: q, lock: l, entries, units: unitList, unitTemps, users: accounts('/etc/passwd'), groups: accounts('/etc/group'), ready: await activeReady(entries, unitList), servedReady: await servedReady(entries, unitList) };
}
function helper(wire, artifact) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = cp.spawn(p.nodePath, wire.argument === '' ? ['-'] : ['-', wire.argument], { stdio: ['pipe', 'pipe', 'ignore'] });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stdin.on('error', () => {});
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), ms: Date.now() - started }));
    child.stdin.end(Buffer.concat([Buffer.from(wire.prelude, 'utf8'), artifact]));
  });
}
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', async () => {
  try {
    p = JSON.parse(input);
    const artifact = p.artifact ? Buffer.from(p.artifact, 'base64') : null;
    const out = [];
    for (const step of p.steps) {
      if (step.collect) out.push({ listing: await collect(step.collect) });
      else if (step.helper !== undefined) out.push(await helper(step.helper, artifact));
      else if (step.sh !== undefined) { const r = run('sh', ['-c', step.sh]); out.push({ code: r.status, stdout: r.stdout || '', stderr: (r.stderr || '').slice(0, 2000) }); }
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  } catch (e) { process.stderr.write(String(e && e.stack || e)); process.exit(1); }
});
`;

export interface CollectOptions {
  /** Wait for helpers to end first (default true); the wait is bounded by waitMs. */
  wait?: boolean;
  /** Also wait for every other ssh session to end (default true: a killed client's session may still start a helper). */
  waitSessions?: boolean;
  waitMs?: number;
}

/** `helper`: an encoded operation (sealed here as the controller seals it) or an exact wire form. */
export type Step = { collect: CollectOptions } | { helper: string | SealedOperation } | { sh: string };

export type StepResult =
  | { listing: Listing }
  | { code: number | null; stdout: string; ms: number; line: ResultLine | undefined }
  | { code: number | null; stdout: string; stderr: string };

function remoteCommand(link: HostLink): string {
  return `${link.nodePath} --input-type=commonjs -e '${SCRIPT.replace(/'/g, `'\\''`)}'`;
}

/** Runs `steps` in order on the host, in one round trip over the shared connection. */
export async function runSteps(link: HostLink, steps: readonly Step[]): Promise<StepResult[]> {
  const withDefaults = steps.map((step) =>
    'collect' in step ? { collect: { wait: true, waitSessions: true, waitMs: 200_000, ...step.collect } } : 'helper' in step ? { helper: wireFor(step.helper) } : step,
  );
  const needsHelper = steps.some((step) => 'helper' in step);
  const payload = JSON.stringify({ root: ROOT, unitDir: UNIT_DIR, user: RUNTIME_USER, nodePath: link.nodePath, artifact: needsHelper ? helperArtifact().toString('base64') : null, steps: withDefaults });
  const result = await link.muxCommand(remoteCommand(link), { input: payload, timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`step runner failed on ${link.host.name} (exit ${String(result.code)}): ${result.stderr.slice(0, 800)}`);
  const outputs = JSON.parse(result.stdout) as StepResult[];
  return outputs.map((output, index) => ('helper' in steps[index]! ? { ...output, line: findResultLine((output as { stdout: string }).stdout) } : output)) as StepResult[];
}

/** Listing of one round trip: wait for quiet, test the lock, list everything. */
export async function collect(link: HostLink, options: CollectOptions = {}): Promise<Listing> {
  const [result] = await runSteps(link, [{ collect: options }]);
  return listingOf(result);
}

export function listingOf(result: StepResult | undefined): Listing {
  if (!result || !('listing' in result)) throw new Error('expected a listing from the step runner');
  return result.listing;
}

export function helperOf(result: StepResult | undefined): { code: number | null; ms: number; line: ResultLine | undefined } {
  if (!result || !('line' in result)) throw new Error('expected a helper result from the step runner');
  return result;
}

export function shOf(result: StepResult | undefined): string {
  if (!result || !('stderr' in result)) throw new Error('expected a shell result from the step runner');
  if (result.code !== 0) throw new Error(`remote shell step exited ${String(result.code)}: ${result.stderr.slice(0, 300)}`);
  return result.stdout;
}

/** The tree hash of the brief: every path's owner, mode, size and mtime under the root and the unit directory, plus passwd (and group). */
export const TREE_HASH = `find ${ROOT} ${UNIT_DIR} -printf '%p %u %g %m %s %T@\\n' 2>/dev/null | sort | sha256sum; getent passwd | sha256sum; getent group | sha256sum`;

export async function treeHash(link: HostLink): Promise<string> {
  return shOf((await runSteps(link, [{ sh: TREE_HASH }]))[0]).trim();
}
