// npm test's phases: each starts once what it needs has passed, side by side otherwise; the first
// failure stops the running ones (their whole process group) and starts nothing more; the table
// closes the run. Real child processes throughout.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { checkPhases, runPhases, timingTable, type Phase } from './phases.js';
import { phases as npmTestPhases } from './npm-test.js';

const node = (code: string) => [process.execPath, '-e', code];
const sink = () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  return { out, text: () => text };
};

describe('npm test phases', () => {
  it('runs independent phases side by side and a dependent one after, printing each line with its phase', async () => {
    const { out, text } = sink();
    const outcomes = await runPhases(
      [
        { name: 'a', argv: node('setTimeout(() => console.log("a done"), 600)') },
        { name: 'b', argv: node('setTimeout(() => console.log("b done"), 600)') },
        { name: 'c', argv: node('console.log("c ran")'), needs: ['a', 'b'] },
      ],
      { cwd: process.cwd(), out },
    );
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['ok', 'ok', 'ok'],
    );
    const [a, b, c] = outcomes;
    // b started before a ended; c only after both.
    assert.ok(b!.startedAt! < a!.startedAt! + a!.seconds!, JSON.stringify(outcomes));
    assert.ok(c!.startedAt! >= Math.max(a!.startedAt! + a!.seconds!, b!.startedAt! + b!.seconds!) - 0.05, JSON.stringify(outcomes));
    assert.match(text(), /^\[a\] a done$/m);
    assert.match(text(), /^\[c\] c ran$/m);
  });

  it('stops the running phases (children included) on the first failure and starts nothing that needed it', async () => {
    const { out } = sink();
    const started = Date.now();
    const outcomes = await runPhases(
      [
        // A grandchild that would outlive a plain kill of its parent.
        { name: 'slow', argv: node('require("child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "inherit" }); setTimeout(() => {}, 60000)') },
        { name: 'red', argv: node('setTimeout(() => process.exit(3), 300)') },
        { name: 'after', argv: node(''), needs: ['red'] },
      ],
      { cwd: process.cwd(), out },
    );
    assert.deepEqual(
      outcomes.map((o) => [o.name, o.status, o.exit]),
      [
        ['slow', 'stopped', undefined],
        ['red', 'failed', 'exit 3'],
        ['after', 'not run', undefined],
      ],
    );
    assert.ok(Date.now() - started < 30_000, 'the slow phase and its child were stopped, not waited for');
    const table = timingTable(outcomes, 1.5);
    assert.match(table[0]!, /^phase\s+start\s+took\s+cpu\s+result$/);
    assert.match(table.at(-1)!, /^total\s+1\.5 s\s+(\d+\.\d s\s+)?FAILED$/);
    assert.match(
      table.find((line) => line.startsWith('red'))!,
      /failed \(exit 3\)$/,
    );
  });

  it("refuses a phase that needs one not declared before it, and npm test's own phases are in a valid order", () => {
    assert.throws(() => checkPhases([{ name: 'x', argv: ['true'], needs: ['y'] }]), /x needs y/);
    assert.throws(
      () =>
        checkPhases([
          { name: 'x', argv: ['true'] },
          { name: 'x', argv: ['true'] },
        ] as Phase[]),
      /declared twice/,
    );
    const list = npmTestPhases('/opt/node24/bin');
    checkPhases(list);
    assert.deepEqual(list.find((p) => p.name === 'e2e')?.needs, ['image-debian12', 'image-strace', 'image-debian13-node26', 'build']);
    assert.match(list.find((p) => p.name === 'lint')?.env?.['PATH'] ?? '', /^\/opt\/node24\/bin:/);
    // Lint and typecheck are the root scripts: one pass over the whole workspace each.
    assert.deepEqual(list.find((p) => p.name === 'typecheck')?.argv, ['npm', 'run', '--silent', 'typecheck']);
    assert.deepEqual(list.find((p) => p.name === 'lint')?.argv, ['npm', 'run', '--silent', 'lint']);
    // The gate for the real OpenClaw's files opens only after every phase that loads the CPU beside the pool.
    assert.deepEqual(list.find((p) => p.name === 'units-done')?.needs, ['lint', 'typecheck', 'audit', 'units', 'units-node-lines']);
  });
});
