// The testhost CLI: usage errors exit 2; `up` leaves a reachable host and prints how to reach it; `down` removes it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { readHostRecord } from './host-record.js';
import { leftoversOf } from './leftovers.js';
import { isAlive } from './process-identity.js';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const execFileP = promisify(execFile);

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, ['--import', 'tsx', CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('testhost CLI', { timeout: 10 * 60_000 }, () => {
  it('exits 2 on usage errors', async () => {
    const cases = [[], ['launch'], ['up'], ['up', 'UPPER'], ['down'], ['reap', 'now'], ['build', '--variant', 'gentoo'], ['up', 'a', '--bogus']];
    const results = await Promise.all(cases.map((args) => cli(args)));
    results.forEach((r, i) => {
      assert.equal(r.code, 2, `${cases[i]?.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /usage: testhost/);
      assert.equal(r.stdout, '');
    });
  });

  it('up prints one JSON object, the host outlives the CLI, down removes it', async () => {
    const name = `cli${process.pid % 100000}`;
    const up = await cli(['up', name]);
    let index: number;
    // The host outlives this process: whatever fails below, it is brought down.
    try {
      assert.equal(up.code, 0, up.stderr);
      const lines = up.stdout.trim().split('\n');
      assert.equal(lines.length, 1);
      const info = JSON.parse(lines[0] ?? '') as Record<string, string | number>;
      assert.deepEqual(Object.keys(info).sort(), ['address', 'fixtureGatewayPath', 'identityFile', 'knownHostsFile', 'nodePath', 'openclawPath', 'port', 'user']);
      index = Number(String(info['address']).split('.')[2]);
      const nspawn = readHostRecord(name)?.nspawn;
      assert.ok(isAlive(nspawn), 'the container runs after the CLI exited');
      // Plain OpenSSH with nothing but what `up` printed.
      const { stdout } = await execFileP('ssh', [
        '-F',
        '/dev/null',
        '-i',
        String(info['identityFile']),
        '-p',
        String(info['port']),
        '-o',
        'BatchMode=yes',
        '-o',
        'StrictHostKeyChecking=yes',
        '-o',
        `UserKnownHostsFile=${String(info['knownHostsFile'])}`,
        `${String(info['user'])}@${String(info['address'])}`,
        `${String(info['nodePath'])} -e "console.log(require('fs').existsSync('${String(info['fixtureGatewayPath'])}'))"`,
      ]);
      assert.equal(stdout.trim(), 'true');
      const again = await cli(['up', name]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /in use/);
    } finally {
      const down = await cli(['down', name]);
      // After a failed `up` there may be nothing to bring down; the failure above is the finding.
      if (up.code === 0) assert.equal(down.code, 0, down.stderr);
    }
    assert.deepEqual(leftoversOf(name, index), []);
    assert.equal((await cli(['down', name])).code, 1, 'no such host any more');
  });
});
