// The account program's write, run directly (as this user, not through setpriv): it clears the temps a
// killed write of the same documents left, and nothing else in the workspace.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ACCOUNT_PROGRAM } from './as-account.js';

describe('the account program', () => {
  const dir = mkdtempSync(join(tmpdir(), 'occ-as-account-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('write clears the temps a killed write of its documents left, follows no link, and keeps everything else', () => {
    const outside = join(dir, '..', `${dir.split('/').pop()}-outside`);
    writeFileSync(outside, 'kept');
    try {
      writeFileSync(join(dir, '.SOUL.md.occ-0123456789ab'), 'half');
      symlinkSync(outside, join(dir, '.AGENTS.md.occ-abcdef012345'));
      writeFileSync(join(dir, '.USER.md.occ-0123456789ab'), 'not this setup');
      writeFileSync(join(dir, '.SOUL.md.occ-short'), 'not our name');
      writeFileSync(join(dir, 'notes.txt'), 'the Agent');
      const request = { op: 'write', dir, files: [{ name: 'IDENTITY.md', content: '# IDENTITY.md\n' }], sweep: ['SOUL.md', 'AGENTS.md', 'IDENTITY.md'] };
      const out = execFileSync(process.execPath, ['-e', ACCOUNT_PROGRAM], { input: JSON.stringify(request), encoding: 'utf8' });
      assert.deepEqual(JSON.parse(out), {});
      assert.deepEqual(readdirSync(dir).sort(), ['.SOUL.md.occ-short', '.USER.md.occ-0123456789ab', 'IDENTITY.md', 'notes.txt']);
      assert.deepEqual(readdirSync(join(dir, '..')).includes(outside.split('/').pop()!), true, 'the link target is untouched');
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('follows no link at any component of a path: a linked parent is refused for write, remove and inspect, with nothing written through it', () => {
    const run = (request: object) => {
      try {
        return JSON.parse(execFileSync(process.execPath, ['-e', ACCOUNT_PROGRAM], { input: JSON.stringify(request), encoding: 'utf8' })) as unknown;
      } catch (error) {
        return JSON.parse(String((error as { stdout: string }).stdout)) as unknown;
      }
    };
    const target = join(dir, 'elsewhere');
    mkdirSync(join(target, 'inner'), { recursive: true });
    writeFileSync(join(target, 'inner', 'kept'), 'kept');
    symlinkSync(target, join(dir, 'link'));
    const through = join(dir, 'link', 'inner');
    assert.deepEqual(run({ op: 'write', dir: through, files: [{ name: 'SOUL.md', content: 'x' }] }), { error: 'ENOTDIR' });
    assert.deepEqual(run({ op: 'write', dir: join(dir, 'link', 'made'), mkdir: true, files: [] }), { error: 'ENOTDIR' });
    assert.deepEqual(run({ op: 'remove', dir: through }), { error: 'ENOTDIR' });
    assert.deepEqual(run({ op: 'inspect', dir: through, names: ['kept'] }), { dir: 'other', files: {} });
    assert.deepEqual(run({ op: 'write', dir: join(dir, 'link'), files: [{ name: 'SOUL.md', content: 'x' }] }), { error: 'ENOTDIR' });
    assert.deepEqual(readdirSync(target).sort(), ['inner']);
    assert.deepEqual(readdirSync(join(target, 'inner')), ['kept']);
    assert.deepEqual(run({ op: 'write', dir: join(dir, 'real'), mkdir: true, files: [{ name: 'SOUL.md', content: 'x' }] }), {});
    assert.deepEqual(run({ op: 'inspect', dir: join(dir, 'real'), names: ['SOUL.md', 'none'] }), {
      dir: 'dir',
      files: { 'SOUL.md': { kind: 'file', sha256: '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881' }, none: { kind: 'absent' } },
    });
    assert.deepEqual(run({ op: 'remove', dir: join(dir, 'real') }), {});
    assert.equal(readdirSync(dir).includes('real'), false);
  });

  it('steps through directories the account may search but not read (0711, as the root keeps them), as the account', () => {
    const searchOnly = join(dir, 'search-only');
    const ws = join(searchOnly, 'ws');
    mkdirSync(ws, { recursive: true });
    chmodSync(dir, 0o711);
    chmodSync(searchOnly, 0o711);
    chownSync(ws, 65534, 65534);
    chmodSync(ws, 0o700);
    const request = { op: 'write', dir: ws, files: [{ name: 'SOUL.md', content: 'searched\n' }] };
    const out = execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, '-e', ACCOUNT_PROGRAM], { input: JSON.stringify(request), encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), {});
    assert.equal(readFileSync(join(ws, 'SOUL.md'), 'utf8'), 'searched\n');
  });
});
