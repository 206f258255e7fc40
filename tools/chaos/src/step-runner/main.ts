// The campaign's step runner, run on a host as `node --input-type=commonjs -e <bundle>` (so
// `pgrep -f '^<node> - '` never matches it, only the helpers it or anyone else starts). It reads
// Params as JSON on stdin, runs the steps in order and prints one JSON array of their results.
import { helperInput, type SealedOperation } from '@occ-ssh/helper-call';
import { collect as collectProcess } from '@occ-ssh/ssh-client';
import type { Entry, Listing } from '../host/listing.js';
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
  const unitList = await units(p);
  const ready = await activeReady(entries, unitList);
  const served = await servedReady(entries, unitList);
  return {
    root: p.root,
    unitDir: p.unitDir,
    quiet: q,
    lock: l,
    entries,
    units: unitList,
    setupUnits: await setupUnits(),
    unitTemps,
    users: users(p),
    groups: groups(p),
    ready,
    servedReady: served.ready,
    servedStopped: served.stopped,
  };
}

/** The built helper with its header argument, the sealed operation and artifact on stdin: exactly as the controller runs it. */
async function helper(p: Params, wire: SealedOperation, artifact: Buffer | null): Promise<{ code: number | null; stdout: string; ms: number }> {
  const started = Date.now();
  // The campaign's own bound on a run of steps (collector.ts) ends a helper that never does.
  const r = await collectProcess(p.nodePath, wire.argument === '' ? ['-'] : ['-', wire.argument], { stdin: helperInput(artifact ?? Buffer.alloc(0), wire), timeoutMs: 600_000, killGraceMs: 0 });
  return { code: r.exitCode, stdout: r.stdout, ms: Date.now() - started };
}

async function main(input: string): Promise<void> {
  const p = JSON.parse(input) as Params;
  const artifact = p.artifact ? Buffer.from(p.artifact, 'base64') : null;
  const out: unknown[] = [];
  for (const step of p.steps) {
    if ('collect' in step) out.push({ listing: await collect(p, step.collect) });
    else if ('helper' in step) out.push(await helper(p, step.helper, artifact));
    else {
      const r = await run('sh', ['-c', step.sh]);
      out.push({ code: r.exitCode, stdout: r.stdout, stderr: r.stderrHead.slice(0, 2000) });
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
