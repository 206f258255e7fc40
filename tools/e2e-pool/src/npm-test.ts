// `npm test`: the whole proof, in phases that run side by side where they can. The host images build
// in the background (mostly download and disk) while the build uses the CPU; the real-host pool
// starts when the images and the build are there (lint, typecheck, the audit and the unit suites end
// beside its first files, and only then do the files that start the real OpenClaw begin) and runs the
// Debian 13 / Node 26 subset in the same pool, the demo among them (tools/demo/src/demo.e2e.test.ts);
// the chaos quick pass follows, alone. The first red phase stops the run.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeLine } from '@occ-ssh/testhost';
import { sampleCpu } from './machine.js';
import { runPhases, timingTable, type Phase } from './phases.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Exists once the unit phases have ended: the pool's gate for the files that start the real OpenClaw. */
const GATE = path.join(ROOT, 'dist/e2e-pool/units-done');
const npm = (...args: string[]) => ['npm', ...args];
const tsx = (script: string, ...args: string[]) => ['node', '--import', 'tsx', '--import', './tools/netguard/src/register.ts', script, ...args];
const nx = (...args: string[]) => npm('exec', '--', 'nx', ...args);
/** The unit phases run after the build phase, whose outputs they use; Nx would otherwise build again (CI skips its cache). */
const afterBuild = '--excludeTaskDependencies';
const testhost = (...args: string[]) => npm('run', '--silent', 'testhost', '--', ...args);

/**
 * The phases; `toolNodeDir` holds the pinned Node 24 the lint phase runs on: dependency-cruiser 18
 * refuses Node 20, which this machine may have as its own Node (it then only starts this script).
 */
export const phases = (toolNodeDir: string): readonly Phase[] => [
  // Leftovers of an interrupted run would hold address slots and names.
  { name: 'reap', argv: testhost('reap') },
  // Debian 12 / Node 24 base, its strace variant (derived from it: only strace is fetched), and Debian 13 / Node 26.
  { name: 'image-debian12', argv: testhost('build'), needs: ['reap'] },
  { name: 'image-strace', argv: testhost('build', '--variant', 'strace'), needs: ['image-debian12'] },
  { name: 'image-debian13-node26', argv: testhost('build', '--debian', 'trixie', '--node', '26'), needs: ['reap'] },
  // The build first: the pool and the unit suites need its outputs (the helper bundle above all).
  { name: 'build', argv: nx('run-many', '-t', 'build', '--outputStyle=static') },
  // Lint (on the pinned Node 24) and typecheck only judge sources: they run beside the pool, each one
  // pass over the whole workspace (the root scripts): per project, every project's run read the
  // libraries again, and the typecheck took fifteen TypeScript programs where one does.
  // One file per Node line below: beside the pool's first files the machine ran at a load of 41
  // with two files per line, and host tests' bounds broke.
  { name: 'lint', argv: npm('run', '--silent', 'lint'), needs: ['build'], env: { PATH: `${toolNodeDir}:${process.env['PATH'] ?? ''}` } },
  { name: 'typecheck', argv: npm('run', '--silent', 'typecheck'), needs: ['build'] },
  { name: 'audit', argv: npm('run', '--silent', 'audit', '--', '--allow-unreachable'), needs: ['build'] },
  // Every other project's unit suite on the tool runner's Node (the build is the phase before's, not redone)...
  { name: 'units', argv: nx('run-many', '-t', 'test', '--exclude=@occ-ssh/controller', '--parallel=2', '--outputStyle=stream', afterBuild), needs: ['build'] },
  // ...and the controller's, the CLI's with it, on Node 22, 24 and 26 side by side: its one script,
  // through npm rather than Nx, which lost the end of its 5,000 lines (the last line's results and
  // summary) on a loaded machine.
  { name: 'units-node-lines', argv: npm('run', '--silent', '--workspace', '@occ-ssh/controller', 'test-node-lines'), needs: ['build'], env: { OCC_UNIT_CONCURRENCY: '1' } },
  // The pool starts as soon as the images and the build are there, with the files that do not start
  // the real OpenClaw; those wait for the gate, opened once lint, typecheck and the unit suites have
  // ended (on two cores they left the real gateway short of its 120-second readiness bound).
  { name: 'e2e', argv: npm('run', '--silent', 'e2e'), needs: ['image-debian12', 'image-strace', 'image-debian13-node26', 'build'], env: { E2E_POOL_GATE: GATE } },
  { name: 'units-done', argv: ['touch', GATE], needs: ['lint', 'typecheck', 'audit', 'units', 'units-node-lines'] },
  { name: 'chaos-quick', argv: tsx('tools/chaos/src/cli.ts', '--quick'), needs: ['e2e', 'units-done'] },
];

async function main(): Promise<number> {
  const started = Date.now();
  const toolNodeDir = path.dirname(await ensureNodeLine(24));
  rmSync(GATE, { force: true });
  mkdirSync(path.dirname(GATE), { recursive: true });
  const stopCpu = sampleCpu();
  const outcomes = await runPhases(phases(toolNodeDir), { cwd: ROOT });
  const cpu = stopCpu();
  process.stdout.write(`\n[ci] phase timings\n${timingTable(outcomes, (Date.now() - started) / 1000).join('\n')}\n`);
  // Where the machine was saturated: the order of the phases matters only where it was not.
  const percent = (share: number) => String(Math.round(share * 100));
  process.stdout.write(`[ci] CPU in use (all cores), per minute: ${cpu.shares.map(percent).join(' ')}; whole run ${percent(cpu.whole)}%\n`);
  return outcomes.every((o) => o.status === 'ok') ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: Error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exit(2);
    },
  );
}
