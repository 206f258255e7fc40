// The harness's SSH client key, and per-host ed25519 host keys with their known_hosts lines.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { mustRun } from './command.js';
import { layout } from './paths.js';

export interface ClientKey {
  identityFile: string;
  publicKey: string;
}

/** Generated once per work dir; a whole directory is renamed into place so concurrent first runs agree on one key. */
export async function ensureClientKey(): Promise<ClientKey> {
  const dir = layout.keys();
  const identityFile = path.join(dir, 'id_ed25519');
  if (!existsSync(identityFile)) {
    await mkdir(path.dirname(dir), { recursive: true });
    const tmp = await mkdtemp(`${dir}.tmp-`);
    await mustRun('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'occ-testhost-client', '-f', path.join(tmp, 'id_ed25519')]);
    try {
      await rename(tmp, dir);
    } catch {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  return { identityFile, publicKey: (await readFile(`${identityFile}.pub`, 'utf8')).trim() };
}

/** Writes a fresh host key into the host's root and returns `ssh-ed25519 AAAA...` (no comment). */
export async function writeHostKey(root: string, comment: string): Promise<string> {
  const keyFile = path.join(root, 'etc/ssh/ssh_host_ed25519_key');
  await rm(keyFile, { force: true });
  await rm(`${keyFile}.pub`, { force: true });
  await mustRun('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', keyFile]);
  return publicKeyWithoutComment(await readFile(`${keyFile}.pub`, 'utf8'));
}

function publicKeyWithoutComment(line: string): string {
  const [type, blob] = line.trim().split(/\s+/);
  if (!type || !blob) throw new Error(`not a public key line: ${line}`);
  return `${type} ${blob}`;
}

export function knownHostsLine(address: string, publicKey: string): string {
  return `${address} ${publicKeyWithoutComment(publicKey)}\n`;
}
