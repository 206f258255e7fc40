// helperArgv: the helper's argv, built only from a safe path and base64.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { remoteCommand } from '@occ-ssh/ssh-client';
import { helperArgv } from './call.js';

const ARGUMENT = Buffer.from(JSON.stringify({ operation: 'probe', x: '?>~' })).toString('base64');

describe('helperArgv', () => {
  it('is `<nodePath> - <base64>`', () => {
    assert.deepEqual(helperArgv('/usr/bin/node', ARGUMENT), ['/usr/bin/node', '-', ARGUMENT]);
    assert.equal(remoteCommand(helperArgv('/usr/bin/node', ARGUMENT)), `/usr/bin/node - ${ARGUMENT}`);
    assert.equal(remoteCommand(helperArgv('/opt/node-v24.1.0/bin/node', 'QQ==')), '/opt/node-v24.1.0/bin/node - QQ==');
  });

  it('refuses a nodePath that would need quoting or is not absolute', () => {
    for (const nodePath of [
      '/usr/bin/my node',
      '/usr/bin/node;id',
      '/usr/bin/$NODE',
      '/usr/bin/node`id`',
      "/usr/bin/no'de",
      '/usr/bin/node\n',
      'node',
      '',
      '/usr/../bin/node',
      '/usr/bin/node|x',
      '/usr/bin/node&',
      '/',
    ]) {
      assert.throws(() => helperArgv(nodePath, ARGUMENT), TypeError, JSON.stringify(nodePath));
    }
  });

  it('refuses an argument that is not base64', () => {
    for (const argument of ['', 'abc def', 'abc;id', '$(id)', 'abc\n', 'QQ==QQ', 'QQ===', '-QQ==', 'a_b-c']) {
      assert.throws(() => helperArgv('/usr/bin/node', argument), { name: 'TypeError', message: 'operation argument is not base64' }, JSON.stringify(argument));
    }
  });
});
