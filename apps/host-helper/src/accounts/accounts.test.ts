// lookup reads the local passwd and group files before asking getent: the entry of exactly the name
// asked for, wherever its line is, and getent only for a name the file lacks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { RecordingRunner } from '../plan/recording-runner.js';
import { lookup } from './accounts.js';

const lines = readFileSync('/etc/passwd', 'utf8').trim().split('\n');
const fieldsOf = (line: string) => line.split(':');

describe('lookup', () => {
  it('reads the first, a middle and the last line of /etc/passwd without starting getent', async () => {
    const runner = new RecordingRunner();
    for (const line of [lines[0]!, lines[Math.floor(lines.length / 2)]!, lines.at(-1)!]) {
      const [name, , uid, gid] = fieldsOf(line);
      assert.deepEqual(await lookup(runner, 'passwd', name!), { name, id: Number(uid), primaryGid: Number(gid) });
    }
    assert.deepEqual(runner.commands, []);
  });

  it('matches a whole name only: a prefix or an extension of a listed name goes to getent', async () => {
    const runner = new RecordingRunner(() => ({ code: 2 }));
    const name = fieldsOf(lines[0]!)[0]!;
    assert.equal(await lookup(runner, 'passwd', name.slice(0, -1)), null);
    assert.equal(await lookup(runner, 'group', `${name}x`), null);
    assert.deepEqual(runner.commands, [`getent passwd ${name.slice(0, -1)}`, `getent group ${name}x`]);
  });
});
