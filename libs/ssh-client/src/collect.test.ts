// collect and BoundedOutput: one result shape for every way a local child ends, with real processes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { collect, start, succeeded } from './collect.js';
import { BoundedOutput } from './output.js';

const NODE = process.execPath;
const script = (source: string) => ['-e', source];

describe('BoundedOutput', () => {
  it('keeps stdout up to its bound, reports the overflow once, and keeps only the head of stderr', () => {
    const seen: number[] = [];
    let overflows = 0;
    const output = new BoundedOutput({ maxStdoutBytes: 5, stderrKeptBytes: 3, onStdout: (chunk) => seen.push(chunk.length), onOverflow: () => (overflows += 1) });
    output.stdout(Buffer.from('abc'));
    output.stdout(Buffer.from('def'));
    output.stdout(Buffer.from('g'));
    output.stderr(Buffer.from('xy'));
    output.stderr(Buffer.from('zw'));
    assert.deepEqual(output.captured(), { stdout: 'abc', stderrHead: 'xyz', stderrBytes: 4, stdoutTruncated: true });
    assert.deepEqual(seen, [3, 3, 1]);
    assert.equal(overflows, 1);
  });
});

describe('collect', () => {
  it('writes stdin, closes it, and collects stdout and the exit code', async () => {
    const result = await collect(NODE, script('process.stdin.pipe(process.stdout); process.stdin.on("end", () => { process.exitCode = 3; });'), { stdin: Buffer.from('hello'), timeoutMs: 10_000 });
    assert.deepEqual(result, { exitCode: 3, signal: null, stdout: 'hello', stderrHead: '', stderrBytes: 0, stdoutTruncated: false, timedOut: false, aborted: false, spawnFailed: false });
  });

  it('counts stderr and keeps only its head', async () => {
    const result = await collect(NODE, script('process.stderr.write("e".repeat(10000))'), { timeoutMs: 10_000, stderrKeptBytes: 16 });
    assert.equal(result.stderrBytes, 10_000);
    assert.equal(result.stderrHead, 'e'.repeat(16));
  });

  it('stops a child whose stdout passes the bound', async () => {
    const result = await collect(NODE, script('const b = Buffer.alloc(65536, 121); const w = () => { while (process.stdout.write(b)); process.stdout.once("drain", w); }; w();'), {
      timeoutMs: 10_000,
      maxStdoutBytes: 100_000,
    });
    assert.equal(result.stdoutTruncated, true);
    assert.ok(Buffer.byteLength(result.stdout) <= 100_000);
    assert.equal(result.signal, 'SIGTERM');
    assert.equal(result.timedOut, false);
  });

  it('stops a child at its timeout: SIGTERM, or SIGKILL at once without a grace', async () => {
    const term = await collect(NODE, script('setInterval(() => {}, 1000)'), { timeoutMs: 300 });
    assert.deepEqual([term.timedOut, term.signal, term.exitCode], [true, 'SIGTERM', null]);
    const kill = await collect(NODE, script('process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'), { timeoutMs: 300, killGraceMs: 0 });
    assert.deepEqual([kill.timedOut, kill.signal], [true, 'SIGKILL']);
  });

  it('stops a child when its signal aborts, and at once when it already has', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const later = await collect(NODE, script('setInterval(() => {}, 1000)'), { timeoutMs: 10_000, signal: controller.signal });
    assert.deepEqual([later.aborted, later.timedOut, later.signal], [true, false, 'SIGTERM']);
    const early = await collect(NODE, script('setInterval(() => {}, 1000)'), { timeoutMs: 10_000, signal: AbortSignal.abort() });
    assert.equal(early.aborted, true);
    assert.notEqual(early.exitCode, 0);
  });

  it('runs in the given directory and names the child it started', async () => {
    const pids: number[] = [];
    const result = await collect(NODE, script('process.stdout.write(process.cwd() + " " + process.pid)'), { timeoutMs: 10_000, cwd: '/', onSpawn: (pid) => pids.push(pid) });
    assert.equal(result.stdout, `/ ${pids[0]}`);
    assert.equal(pids.length, 1);
  });

  it('reports a program that cannot be started', async () => {
    const result = await collect('/nonexistent/program', [], { timeoutMs: 1_000 });
    assert.equal(result.spawnFailed, true);
    assert.equal(result.spawnError, 'ENOENT');
    assert.equal(result.stdout, '');
  });
});

describe('start', () => {
  it('hands back the running child, and the same result once stop() has ended it', async () => {
    const started = start(NODE, script('process.stdout.write("up\\n"); setInterval(() => {}, 1000)'), { killGraceMs: 0, onStdout: () => started.stop() });
    assert.equal(typeof started.child.pid, 'number');
    const result = await started.done;
    assert.deepEqual([result.stdout, result.signal, result.timedOut, result.aborted], ['up\n', 'SIGKILL', false, false]);
  });

  it('pipes one stage into the next: stdout left to read, a stream as stdin', async () => {
    const first = start(NODE, script('process.stdout.write("a\\nb\\n")'), { pipeStdout: true, timeoutMs: 10_000 });
    const second = start(NODE, script('let n = 0; process.stdin.on("data", (c) => (n += c.length)); process.stdin.on("end", () => process.stdout.write(`${n}\n`))'), {
      stdin: first.child.stdout!,
      timeoutMs: 10_000,
    });
    const [a, b] = await Promise.all([first.done, second.done]);
    assert.deepEqual([a.exitCode, a.stdout, b.exitCode, b.stdout], [0, '', 0, '4\n']);
  });

  it('writes to an open file instead of collecting, and reports a program that cannot start', async () => {
    const dir = mkdtempSync(`${tmpdir()}/occ-start-`);
    const fd = openSync(`${dir}/console`, 'a');
    try {
      const result = await start(NODE, script('console.log("to the file"); console.error("and this")'), { outputFd: fd, timeoutMs: 10_000 }).done;
      assert.deepEqual([result.exitCode, result.stdout, result.stderrBytes], [0, '', 0]);
      assert.equal(readFileSync(`${dir}/console`, 'utf8'), 'to the file\nand this\n');
      const missing = await start(`${dir}/no-such-program`, [], { outputFd: fd, timeoutMs: 10_000 }).done;
      assert.deepEqual([missing.spawnFailed, missing.spawnError], [true, 'ENOENT']);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('echoes each stderr chunk as it arrives, beyond the kept head', async () => {
    const seen: string[] = [];
    const result = await collect(NODE, script('process.stderr.write("0123456789")'), { timeoutMs: 10_000, stderrKeptBytes: 4, onStderr: (chunk) => seen.push(chunk.toString()) });
    assert.deepEqual([seen.join(''), result.stderrHead], ['0123456789', '0123']);
    assert.equal(succeeded(result), true);
  });
});
