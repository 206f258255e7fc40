// The jump host's ssh_config file, one per executor; the strict argv itself is @occ-ssh/ssh-client's
// (shared with the test hosts, chaos and bench).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jumpHostConfig, type JumpConfig, type JumpHostSettings, type SshClientSettings } from '@occ-ssh/ssh-client';

/** A private directory holding the jump host's ssh_config, for as long as its executor lives. */
export class JumpConfigFile implements JumpConfig {
  readonly path: string;
  private readonly directory: string;

  constructor(settings: SshClientSettings & { jumpHost: JumpHostSettings }, baseDirectory = tmpdir()) {
    // mkdtemp makes a 0700 directory owned by this process's user; the file is 0600 inside it.
    this.directory = mkdtempSync(join(baseDirectory, 'occ-ssh-jump-'));
    // OpenSSH puts `-F <path>` into the jump hop's command line, which a shell splits: plain characters only.
    if (!/^[A-Za-z0-9._/-]+$/.test(this.directory)) {
      rmSync(this.directory, { recursive: true, force: true });
      throw new Error(`the jump host's ssh_config directory ${JSON.stringify(this.directory)} must be a plain path; set TMPDIR to one`);
    }
    this.path = join(this.directory, 'ssh_config');
    writeFileSync(this.path, jumpHostConfig(settings), { mode: 0o600, flag: 'wx' });
    chmodSync(this.path, 0o600);
  }

  remove(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }
}
