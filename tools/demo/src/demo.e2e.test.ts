// The README's demo command, run whole as one of the pool's files that start the real OpenClaw: it
// then runs under their rule (after the unit suites, at most three at once) instead of beside the
// chaos campaign, whose lanes booting their hosts left the demo's gateway short of its 120-second
// readiness bound. What it prints goes to this file's report as it comes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { collect, succeeded } from '@occ-ssh/ssh-client';

const workspace = fileURLToPath(new URL('../../../', import.meta.url));

test('the demo boots a local test host, deploys the real OpenClaw gateway, cuts over, deletes the Namespace and tears the host down', async () => {
  const result = await collect(process.execPath, ['--import', 'tsx', '--import', './tools/netguard/src/register.ts', 'tools/demo/src/demo.ts'], {
    cwd: workspace,
    timeoutMs: 20 * 60_000,
    stopOnOverflow: false,
    onStdout: (chunk: Buffer) => process.stderr.write(chunk),
    onStderr: (chunk: Buffer) => process.stderr.write(chunk),
  });
  assert.ok(succeeded(result), `the demo exited ${String(result.exitCode ?? result.signal ?? result.spawnError)}`);
  for (const step of ['occ-ssh deploy revision 1', 'occ-ssh deploy revision 2 (cutover, then retire revision 1)', 'occ-ssh delete-namespace', 'tear down the test host']) {
    assert.ok(result.stdout.includes(`== ${step}`), `the demo ran "${step}"`);
  }
  assert.match(result.stdout, /demo finished in \d+\.\d s/);
});
