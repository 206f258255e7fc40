// The identity and known_hosts files an ssh2 connection reads, checked as preflight checks them.
import { constants as fsConstants } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { parseKnownHosts, type KnownHostEntry } from '../known-hosts.js';
import type { SshClientSettings } from '@occ-ssh/ssh-client';
import type { ConnectionFailure } from './failures.js';

export interface ClientFiles {
  privateKey: Buffer;
  knownHosts: KnownHostEntry[];
}

export class FileProblem extends Error {
  constructor(readonly reason: ConnectionFailure) {
    super(reason);
  }
}

/**
 * Reads both files at connection time. Links are resolved first (Kubernetes mounts Secret files as
 * links into a `..data` directory); the final target is opened without following a symlink and
 * checked through that descriptor, so the checked file is the one read. The identity must be a
 * regular file only its owner can read, as preflight requires; known_hosts must be a regular file.
 */
export async function loadClientFiles(settings: SshClientSettings): Promise<ClientFiles> {
  const privateKey = await readRegularFile(settings.identityFile, true);
  if (!privateKey) throw new FileProblem('identity-file');
  const knownHosts = await readRegularFile(settings.knownHostsFile, false);
  if (!knownHosts) throw new FileProblem('known-hosts-file');
  return { privateKey, knownHosts: parseKnownHosts(knownHosts.toString('utf8')) };
}

async function readRegularFile(path: string, ownerOnly: boolean): Promise<Buffer | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(await realpath(path), fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    const stat = await handle.stat();
    if (!stat.isFile() || (ownerOnly && (stat.mode & 0o077) !== 0)) return undefined;
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
