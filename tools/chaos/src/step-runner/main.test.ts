// The bundled step runner, run locally the way a host runs it: `node --input-type=commonjs -e`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SEALED_KEY, sealOperation } from '@occ-ssh/helper-call';
import { STEP_RUNNER_PATH } from '../host/collector.js';
import type { Listing } from '../host/listing.js';
import type { Params } from './params.js';

function runSteps(params: Params): unknown[] {
  const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', readFileSync(STEP_RUNNER_PATH, 'utf8')], { input: JSON.stringify(params), encoding: 'utf8' });
  return JSON.parse(out) as unknown[];
}

describe('the step runner bundle', () => {
  it('runs shell steps and lists a tree without following links or reading private files', () => {
    const root = mkdtempSync(join(tmpdir(), 'occ-chaos-runner-'));
    try {
      mkdirSync(join(root, 'home'));
      writeFileSync(join(root, 'marker.json'), '{"a":1}');
      writeFileSync(join(root, 'home', 'secret.json'), '{"s":1}');
      writeFileSync(join(root, 'x.tmp-1'), '');
      const params: Params = {
        root,
        unitDir: join(root, 'no-units'),
        user: 'nobody-such',
        nodePath: '/nonexistent/node',
        artifact: null,
        steps: [{ sh: 'printf hi; exit 3' }, { collect: { wait: false, waitSessions: false, waitMs: 1000 } }],
      };
      const [sh, collected] = runSteps(params) as [{ code: number; stdout: string }, { listing: Listing }];
      assert.deepEqual([sh.code, sh.stdout], [3, 'hi']);
      const { listing } = collected;
      assert.equal(listing.root, root);
      assert.deepEqual(
        listing.entries.map((e) => e.path),
        ['home', 'home/secret.json', 'marker.json', 'x.tmp-1'],
      );
      assert.equal(listing.entries.find((e) => e.path === 'marker.json')?.text, '{"a":1}');
      assert.equal(listing.entries.find((e) => e.path === 'home/secret.json')?.text, undefined);
      assert.deepEqual([listing.units, listing.unitTemps, listing.users], [[], [], []]);
      assert.equal(listing.quiet.timedOut, false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('runs a helper step as the controller does: the header on argv, the sealed operation and then the artifact on stdin', () => {
    const encoded = Buffer.from('{"operation":"probe"}').toString('base64');
    const wire = sealOperation(encoded);
    // A stand-in artifact that reports what it was given; the runner must not care what the helper is.
    const artifact = `process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), sealed: globalThis[Symbol.for(${JSON.stringify(SEALED_KEY)})] }));process.exitCode = 4;`;
    const params: Params = {
      root: '/nonexistent',
      unitDir: '/nonexistent',
      user: 'nobody-such',
      nodePath: process.execPath,
      artifact: Buffer.from(artifact).toString('base64'),
      steps: [{ helper: wire }],
    };
    const [helper] = runSteps(params) as [{ code: number; stdout: string }];
    assert.equal(helper.code, 4);
    assert.deepEqual(JSON.parse(helper.stdout), { argv: [wire.argument], sealed: encoded });
  });
});
