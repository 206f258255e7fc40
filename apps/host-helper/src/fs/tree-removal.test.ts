// The child removals on this machine: deep chains and outward links, never followed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { hostRunner } from '../run/system.js';
import { removeTreeBounded, runUntilAborted } from './tree-removal.js';

const base = mkdtempSync(`${tmpdir()}/occ-tree-removal-`);
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
