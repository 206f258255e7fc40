// The runner's children on this machine: each has its own bound, is killed with its whole group the
// moment it is found stopped, and dies with the helper even when the helper is killed outright.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PROGRAM_ENV, hostRunner, stoppedProcess } from './system.js';

const base = mkdtempSync(join(tmpdir(), 'occ-children-'));
after(() => rmSync(base, { recursive: true, force: true }));

const options = (timeoutMs = 60_000) => ({ env: PROGRAM_ENV, cwd: '/', output: false, signal: new AbortController().signal, timeoutMs });

/** Dead: no such process, or a zombie its new parent has not reaped yet (an orphan waits for PID 1). */
function dead(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .startsWith('Z');
  } catch {
    return true;
  }
}

function gone(pid: number, withinMs: number): boolean {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (dead(pid)) return true;
    spawnSync('sleep', ['0.05']);
  }
  return false;
}

describe('the children the runner starts', () => {
  it('a child found stopped is killed at once with its whole group, not waited for to its bound', async () => {
    const marker = join(base, 'stopped-group');
    const started = Date.now();
    await assert.rejects(hostRunner.runChild({ file: 'sh', args: ['-c', `sleep 30 & echo $! > ${marker}; kill -STOP $$; wait`] }, options()), { code: 'host-command', stopped: true, killed: true });
    const ms = Date.now() - started;
    process.stderr.write(`# a stopped child was killed after ${ms} ms\n`);
    assert.ok(ms < 10_000, `took ${ms} ms`);
    assert.equal(gone(Number(readFileSync(marker, 'utf8')), 2000), true, 'its group went with it');
  });

  it('a child that outruns its own bound is killed with its group', async () => {
    const marker = join(base, 'bounded-group');
    await assert.rejects(hostRunner.runChild({ file: 'sh', args: ['-c', `sleep 30 & echo $! > ${marker}; wait`] }, options(500)), { code: 'host-command', stopped: false, killed: true });
    assert.equal(gone(Number(readFileSync(marker, 'utf8')), 2000), true);
  });

  it('a child dies with the helper: a helper killed with SIGKILL leaves no child behind', () => {
    const marker = join(base, 'orphan');
    // A stand-in helper that starts a child through the runner, then is killed outright.
    const system = new URL('./system.ts', import.meta.url).pathname;
    const helper = `import(${JSON.stringify(system)}).then(({ hostRunner, PROGRAM_ENV }) => {
      hostRunner.runChild({ file: 'sh', args: ['-c', 'echo $$ > ${marker}; exec sleep 60'] }, { env: PROGRAM_ENV, cwd: '/', output: false, signal: new AbortController().signal, timeoutMs: 60000 }).catch(() => {});
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 500);
    })`;
    spawnSync(process.execPath, ['--import', 'tsx', '-e', helper], { stdio: 'ignore', timeout: 30_000 });
    const child = Number(readFileSync(marker, 'utf8'));
    assert.ok(child > 0);
    assert.equal(gone(child, 5000), true, `child ${child} outlived the helper`);
  });

  it('a program that cannot be run is a host-command failure, through the parent-death wrapper too', async () => {
    await assert.rejects(hostRunner.runChild({ file: '/nonexistent/rm', args: [] }, options()), { code: 'host-command', killed: false });
  });

  it('reads a process as stopped only when it is', () => {
    assert.equal(stoppedProcess(process.pid), false);
    assert.equal(stoppedProcess(2 ** 30), false);
  });
});
