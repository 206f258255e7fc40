// The jump host's ssh_config file (system-ssh.ts JumpConfigFile): private, named by argv, removed on request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOST } from '../../test/fakes.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dirname } from 'node:path';
import { JUMP_ALIAS, jumpHostConfig, sshArgv, type SshClientSettings } from '@occ-ssh/ssh-client';
import { JumpConfigFile } from './system-ssh.js';

const SETTINGS: SshClientSettings = { identityFile: '/etc/openclaw/ssh/id_ed25519', knownHostsFile: '/etc/openclaw/ssh/known_hosts', connectTimeoutSeconds: 10 };
const COMMAND = '/usr/bin/node - eyJhIjoxfQ==';

describe('the jump host', () => {
  const JUMP = { ...SETTINGS, jumpHost: { address: '198.51.100.7', port: 2200, user: 'jump' } };

  it('lives in a private file that argv names with -F and -J, and is removed on request', () => {
    const file = new JumpConfigFile(JUMP);
    try {
      assert.equal(statSync(file.path).mode & 0o777, 0o600);
      assert.equal(statSync(dirname(file.path)).mode & 0o777, 0o700);
      assert.equal(readFileSync(file.path, 'utf8'), jumpHostConfig(JUMP));
      const argv = sshArgv(JUMP, HOST, COMMAND, [], file);
      assert.deepEqual(argv.slice(0, 4), ['-F', file.path, '-J', JUMP_ALIAS]);
      assert.deepEqual(argv.slice(-2), ['203.0.113.10', COMMAND]);
    } finally {
      file.remove();
    }
    assert.equal(existsSync(file.path), false);
  });

  it("refuses a temp directory the jump hop's shell would split", () => {
    const base = mkdtempSync(join(tmpdir(), 'occ jump '));
    try {
      assert.throws(() => new JumpConfigFile(JUMP, base), /must be a plain path; set TMPDIR/);
      assert.deepEqual(readdirSync(base), [], 'nothing is left behind');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
