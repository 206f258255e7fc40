// remoteCommand: the one shell string, every word the shell would interpret quoted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { remoteCommand } from './remote-command.js';

describe('remoteCommand', () => {
  it('leaves plain words alone and single-quotes every word the shell would otherwise interpret', () => {
    assert.equal(remoteCommand(['/usr/bin/node', '-', 'eyJhIjoxfQ==']), '/usr/bin/node - eyJhIjoxfQ==');
    assert.equal(remoteCommand(['/usr/bin/node', '-', '$(id)', 'a b', "it's", '']), `/usr/bin/node - '$(id)' 'a b' 'it'\\''s' ''`);
    assert.equal(remoteCommand(['echo', 'x;y', '`id`', '*', '~']), `echo 'x;y' '\`id\`' '*' '~'`);
  });

  it('refuses an empty argv and a NUL byte', () => {
    assert.throws(() => remoteCommand([]), TypeError);
    assert.throws(() => remoteCommand(['/usr/bin/node', 'a\0b']), TypeError);
  });
});
