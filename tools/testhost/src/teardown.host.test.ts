// Hosts are taken apart when their process exits or is interrupted, and reap clears those of killed ones.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { mkdirSync } from 'node:fs';
import { hostFiles, readHostRecord } from './host-record.js';
import { reapTestHosts, startTestHost } from './index.js';
import { leftoversOf } from './leftovers.js';
import { isAlive, sleep } from './process-identity.js';

interface Held {
  child: ChildProcess;
  name: string;
  index: number;
}

const HOLDER = fileURLToPath(new URL('./hold-host.ts', import.meta.url));
const holders: ChildProcess[] = [];

/** Starts a separate process holding one host and waits for its report line. */
function holdHost(mode: 'wait' | 'exit'): Promise<Held> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, mode], { stdio: ['pipe', 'pipe', 'inherit'] });
  holders.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      const { name, address } = JSON.parse(line) as { name: string; address: string };
      resolve({ child, name, index: Number(address.split('.')[2]) });
    });
    child.once('exit', (code) => reject(new Error(`holder exited early with ${code}`)));
  });
}

/** Levels past what Node 20's recursive rmSync survives (it overflows its stack at about 2,500). */
const DEPTH = 5000;

/** A chain `depth` levels deep under `dir`, made level by level (a path this long cannot be named whole). */
function plantChain(dir: string, depth: number): void {
  const cwd = process.cwd();
  mkdirSync(dir, { recursive: true });
  process.chdir(dir);
  try {
    for (let i = 0; i < depth; i++) {
      mkdirSync('d');
      process.chdir('d');
    }
  } finally {
    process.chdir(cwd);
  }
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

describe('teardown outside the happy path', { timeout: 10 * 60_000 }, () => {
  // A failed assertion must not leave a holder (and its host) running: end them all either way.
  after(async () => {
    await Promise.all(
      holders.map((child) => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        return exited(child);
      }),
    );
  });

  it('runs on SIGTERM, SIGINT and plain exit, for hosts started by separate processes at once', async () => {
    const held = await Promise.all([holdHost('wait'), holdHost('wait'), holdHost('exit')]);
    assert.equal(new Set(held.map((h) => h.index)).size, 3, 'distinct slots across processes');
    const [term, int, plain] = held as [Held, Held, Held];
    term.child.kill('SIGTERM');
    int.child.kill('SIGINT');
    assert.deepEqual(await Promise.all([exited(term.child), exited(int.child), exited(plain.child)]), [143, 130, 0]);
    for (const h of held) assert.deepEqual(leftoversOf(h.name, h.index), [], h.name);
  });

  it('reap clears the hosts of a killed process, and only those', async () => {
    const [killed, survivor] = await Promise.all([holdHost('wait'), holdHost('wait')]);
    const nspawn = readHostRecord(killed.name)?.nspawn;
    killed.child.kill('SIGKILL');
    await exited(killed.child);
    await sleep(200);
    assert.ok(isAlive(nspawn), 'the container outlives its killed owner');
    assert.ok(leftoversOf(killed.name, killed.index).length > 0);
    const { removed } = await reapTestHosts();
    assert.ok(removed.includes(`host ${killed.name}`), removed.join(', '));
    assert.deepEqual(leftoversOf(killed.name, killed.index), []);
    assert.ok(!isAlive(nspawn));
    assert.ok(!removed.includes(`host ${survivor.name}`), 'a host whose owner lives is left alone');
    assert.ok(leftoversOf(survivor.name, survivor.index).length > 0);
    survivor.child.kill('SIGTERM');
    assert.equal(await exited(survivor.child), 143);
    assert.deepEqual(leftoversOf(survivor.name, survivor.index), []);
  });

  it('a host holding a chain thousands of levels deep, planted from inside, tears down completely', async () => {
    const host = await startTestHost();
    const index = Number(host.address.split('.')[2]);
    const script = `const fs = require('node:fs'); fs.mkdirSync('/var/tmp/chain'); process.chdir('/var/tmp/chain'); for (let i = 0; i < ${DEPTH}; i++) { fs.mkdirSync('d'); process.chdir('d'); }`;
    await host.run([host.nodePath, '-e', script]);
    assert.match(await host.run(['sh', '-c', 'find /var/tmp/chain -type d | wc -l']), new RegExp(`^${DEPTH + 1}\n`));
    await host.down();
    assert.deepEqual(leftoversOf(host.name, index), []);
  });

  it("reap clears a killed process's host whose state holds such a chain", async () => {
    const killed = await holdHost('wait');
    killed.child.kill('SIGKILL');
    await exited(killed.child);
    plantChain(`${hostFiles(killed.name).upper}/var/tmp/chain`, DEPTH);
    const { removed } = await reapTestHosts();
    assert.ok(removed.includes(`host ${killed.name}`), removed.join(', '));
    assert.deepEqual(leftoversOf(killed.name, killed.index), []);
  });
});
