// The ledger's lock between occ-ssh processes: a lock file that shows no live owner is never taken
// from a process that may hold it, a dead owner's lock is taken over, and concurrent processes lose no commit.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import type { AgentRevision } from '../types.js';
import { Ledger } from './ledger.js';

const revision = (number: number): AgentRevision => ({ id: `rev-${number}`, namespaceId: 'ns-1', agentId: 'agent-1', revision: number }) as unknown as AgentRevision;

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const LEDGER = fileURLToPath(new URL('./ledger.ts', import.meta.url));

/** A process committing `count` revisions in turn, each the ledger's number plus one, retrying on conflict. */
const COMMITTER = `
const { Ledger } = await import(process.argv[1]);
const ledger = new Ledger(process.argv[2], 60000);
let done = 0;
while (done < Number(process.argv[3])) {
  const current = ledger.entry('ns-1', 'agent-1')?.active ?? null;
  const number = (current?.revision ?? 0) + 1;
  try {
    await ledger.compareAndSet({ id: 'rev-' + number + '-' + process.pid, namespaceId: 'ns-1', agentId: 'agent-1', revision: number }, current?.id ?? null);
    done += 1;
  } catch (error) {
    if (error.code !== 'conflict') throw error;
  }
}
`;

describe('the ledger lock', () => {
  it('never takes over a lock file whose owner it cannot read: it waits, fails with lock-timeout naming it, and leaves it', async () => {
    const dir = mkdtempSync(`${tmpdir()}/occ-ledger-`);
    const ledger = new Ledger(`${dir}/ledger.json`, 300);
    // What another process's lock looked like between its create and its write in the old scheme.
    writeFileSync(`${dir}/ledger.json.lock`, '');
    const error = await ledger.compareAndSet(revision(1), null).then(
      () => assert.fail('the lock was taken from its owner'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ComputeError);
    assert.equal(error.code, 'lock-timeout');
    assert.match(error.message, /ledger\.json\.lock is held by an owner it cannot read \(remove it by hand if no occ-ssh runs\)/);
    assert.equal(readFileSync(`${dir}/ledger.json.lock`, 'utf8'), '', 'the lock file stays');
    assert.equal(ledger.entry('ns-1', 'agent-1'), undefined, 'nothing was committed');
  });

  it("waits for a live owner's lock, then fails with lock-timeout naming that process", async () => {
    const dir = mkdtempSync(`${tmpdir()}/occ-ledger-`);
    writeFileSync(`${dir}/ledger.json.lock`, `${process.pid} ${randomUUID()}`);
    const error = await new Ledger(`${dir}/ledger.json`, 300).compareAndSet(revision(1), null).catch((e: unknown) => e);
    assert.ok(error instanceof ComputeError && error.code === 'lock-timeout');
    assert.match(error.message, new RegExp(`is held by process ${process.pid}`));
  });

  it("takes over a dead owner's lock, and leaves no lock behind", async () => {
    const dir = mkdtempSync(`${tmpdir()}/occ-ledger-`);
    writeFileSync(`${dir}/ledger.json.lock`, `${deadPid()} ${randomUUID()}`);
    const ledger = new Ledger(`${dir}/ledger.json`, 5000);
    await ledger.compareAndSet(revision(1), null);
    assert.equal(ledger.entry('ns-1', 'agent-1')?.active.id, 'rev-1');
    assert.equal(existsSync(`${dir}/ledger.json.lock`), false);
    assert.equal(existsSync(`${dir}/ledger.json.lock.break`), false);
  });

  it("loses no commit when several processes start on a dead owner's lock and commit at once", async () => {
    const dir = mkdtempSync(`${tmpdir()}/occ-ledger-`);
    const path = `${dir}/ledger.json`;
    writeFileSync(`${path}.lock`, `${deadPid()} ${randomUUID()}`);
    const processes = 4;
    const each = 15;
    const runs = Array.from({ length: processes }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', COMMITTER, LEDGER, path, String(each)], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      return new Promise<void>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`committer exited ${String(code)}: ${err}`)))));
    });
    await Promise.all(runs);
    // Each success committed the number after the one it read: a lost update would leave a lower number.
    assert.equal(new Ledger(path).entry('ns-1', 'agent-1')?.active.revision, processes * each);
  });
});
