// The child removals on this machine: deep chains, 000 modes and outward links, as root and as an account.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { hostRunner } from './system.js';
import { emptyAsAccount, removeTreeBounded, runUntilAborted } from './tree-removal.js';

/** nobody:nogroup, an account that owns nothing else here. */
const ACCOUNT = { uid: 65534, gid: 65534 };
const base = mkdtempSync(`${tmpdir()}/occ-tree-removal-`);
// The account must reach its directories, as under the helper's 0711 root.
chmodSync(base, 0o711);
after(() => spawnSync('rm', ['-rf', '--one-file-system', '--', base]));

/** A chain `depth` levels deep under `dir`, made without recursion (Node 20's rmSync overflows at about 2,500). */
function chain(dir: string, depth: number): void {
  const cwd = process.cwd();
  mkdirSync(dir);
  process.chdir(dir);
  for (let i = 0; i < depth; i++) {
    mkdirSync('d');
    process.chdir('d');
  }
  writeFileSync('leaf', 'deep');
  process.chdir(cwd);
}

describe('removeTreeBounded', () => {
  it('removes a 5,000-level chain and a link, leaving the link target', async () => {
    const dir = `${base}/root-chain`;
    chain(dir, 5000);
    writeFileSync(`${base}/target`, 'keep');
    symlinkSync(`${base}/target`, `${dir}/link`);
    await removeTreeBounded(hostRunner, dir, new AbortController().signal);
    assert.equal(existsSync(dir), false);
    assert.equal(readFileSync(`${base}/target`, 'utf8'), 'keep');
  });
});

describe('emptyAsAccount', () => {
  const agentDir = (name: string) => {
    const dir = `${base}/${name}`;
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, ACCOUNT.uid, ACCOUNT.gid);
    return dir;
  };
  const own = (path: string) => chownSync(path, ACCOUNT.uid, ACCOUNT.gid);

  it("empties the account's directory, 000 subtrees included, and keeps the directory and link targets", async () => {
    const home = agentDir('home');
    chain(`${home}/chain`, 3000);
    mkdirSync(`${home}/locked/inner`, { recursive: true });
    writeFileSync(`${home}/locked/inner/file`, 'x');
    writeFileSync(`${base}/outside`, 'keep');
    symlinkSync(`${base}/outside`, `${home}/locked/out`);
    // Everything the account planted is its own: chown without following the link.
    for (const path of [`${home}/locked`, `${home}/locked/inner`, `${home}/locked/inner/file`]) own(path);
    await runUntilAborted(hostRunner, { file: 'chown', args: ['-R', '-h', `${ACCOUNT.uid}:${ACCOUNT.gid}`, `${home}/chain`, `${home}/locked/out`] }, new AbortController().signal);
    chmodSync(`${home}/locked/inner`, 0);
    chmodSync(`${home}/locked`, 0);
    assert.equal(await emptyAsAccount(hostRunner, home, ACCOUNT, new AbortController().signal), true);
    assert.deepEqual(readdirSync(home), []);
    assert.equal(readFileSync(`${base}/outside`, 'utf8'), 'keep');
  });

  it('as the account it cannot remove what is not its own: a root file stays for root', async () => {
    const state = agentDir('state');
    mkdirSync(`${state}/rootdir`);
    writeFileSync(`${state}/rootdir/root-file`, 'root');
    assert.equal(await emptyAsAccount(hostRunner, state, ACCOUNT, new AbortController().signal), false);
    assert.equal(readFileSync(`${state}/rootdir/root-file`, 'utf8'), 'root');
  });

  it('never walks a directory the account does not own', async () => {
    const dir = `${base}/foreign`;
    mkdirSync(dir);
    writeFileSync(`${dir}/file`, 'x');
    assert.equal(await emptyAsAccount(hostRunner, dir, ACCOUNT, new AbortController().signal), false);
    assert.deepEqual(readdirSync(dir), ['file']);
  });

  it('absent is empty', async () => {
    assert.equal(await emptyAsAccount(hostRunner, `${base}/absent`, ACCOUNT, new AbortController().signal), true);
  });
});

describe('runUntilAborted', () => {
  it('kills the child at once when the signal aborts, and rejects with its reason', async () => {
    const stop = new AbortController();
    const reason = new ComputeError('cancelled', 'the controller session closed');
    const started = Date.now();
    setTimeout(() => stop.abort(reason), 200);
    await assert.rejects(runUntilAborted(hostRunner, { file: 'sh', args: ['-c', 'sleep 30 & sleep 30; wait'] }, stop.signal), (error) => error === reason);
    assert.ok(Date.now() - started < 10_000);
  });

  it('an already aborted signal starts nothing', async () => {
    const stop = new AbortController();
    stop.abort(new ComputeError('timeout', 'deadline'));
    await assert.rejects(runUntilAborted(hostRunner, { file: 'touch', args: [`${base}/never`] }, stop.signal), { code: 'timeout' });
    assert.equal(existsSync(`${base}/never`), false);
  });

  it('a program that cannot be run is a host-command failure', async () => {
    await assert.rejects(runUntilAborted(hostRunner, { file: '/nonexistent/rm', args: [] }, new AbortController().signal), { code: 'host-command' });
  });
});
