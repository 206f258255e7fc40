// The campaign's step runner, run on a host as `node --input-type=commonjs -e <bundle>` (so
// `pgrep -f '^<node> - '` never matches it, only the helpers it or anyone else starts). It reads
// Params as JSON on stdin, runs the steps in order and prints one JSON array of their results.
import { spawn } from 'node:child_process';
import { helperInput, type SealedOperation } from '@occ-ssh/helper-call';
import type { Entry, Listing } from '../listing.js';
import { run, type CollectOptions, type Params } from './params.js';
import { lock, quiet } from './quiet.js';
import { activeReady, servedReady } from './ready.js';
import { groups, setupUnits, temps, units, users, walk } from './tree.js';

async function collect(p: Params, o: CollectOptions): Promise<Listing> {
  const q = await quiet(p, o);
  const l = await lock(p);
  const entries: Entry[] = [];
  walk(p.root, '', entries, 0);
  const unitTemps: string[] = [];
  temps(p.unitDir, unitTemps);
  const unitList = units(p);
  return {
    root: p.root,
    unitDir: p.unitDir,
    quiet: q,
    lock: l,
    entries,
    units: unitList,
    setupUnits: setupUnits(),
    unitTemps,
    users: users(p),
    groups: groups(p),
    ready: await activeReady(entries, unitList),
    servedReady: await servedReady(entries, unitList),
  };
}

/** The built helper with its header argument, the sealed operation and artifact on stdin: exactly as the controller runs it. */
function helper(p: Params, wire: SealedOperation, artifact: Buffer | null): Promise<{ code: number | null; stdout: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(p.nodePath, wire.argument === '' ? ['-'] : ['-', wire.argument], { stdio: ['pipe', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stdin.on('error', () => {});
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), ms: Date.now() - started }));
    child.stdin.end(helperInput(artifact ?? Buffer.alloc(0), wire));
  });
}

async function main(input: string): Promise<void> {
  const p = JSON.parse(input) as Params;
  const artifact = p.artifact ? Buffer.from(p.artifact, 'base64') : null;
  const out: unknown[] = [];
  for (const step of p.steps) {
    if ('collect' in step) out.push({ listing: await collect(p, step.collect) });
    else if ('helper' in step) out.push(await helper(p, step.helper, artifact));
    else {
      const r = run('sh', ['-c', step.sh]);
      out.push({ code: r.status, stdout: r.stdout || '', stderr: (r.stderr || '').slice(0, 2000) });
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c: string) => (input += c));
process.stdin.on('end', () => {
  main(input).catch((e: unknown) => {
    process.stderr.write(String((e instanceof Error && e.stack) || e));
    process.exit(1);
  });
});
