// Prepares a host's own root: an overlay over the shared rootfs, plus its identity and access files.
import { randomUUID } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mustRun } from './command.js';
import { knownHostsLine, writeHostKey, type ClientKey } from './keys.js';
import { hostFiles } from './host-record.js';
import { HOST_PATHS } from './paths.js';

/** Kept out of the cached image on purpose: editing the fixture must not force a rootfs rebuild. */
const FIXTURE_GATEWAY_SOURCE = fileURLToPath(new URL('../fixture-gateway/gateway.cjs', import.meta.url));

export async function mountOverlay(name: string, lowerDir: string): Promise<void> {
  const f = hostFiles(name);
  for (const dir of [f.upper, f.work, f.root]) await mkdir(dir, { recursive: true });
  await mustRun('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${lowerDir},upperdir=${f.upper},workdir=${f.work}`, f.root]);
}

async function writeSecret(file: string, content: string): Promise<void> {
  await writeFile(file, content, { mode: 0o600 });
  await chmod(file, 0o600);
}

/** Hostname, machine-id, host key, root's authorized key and the fixture gateway; returns the known_hosts file. */
export async function writeIdentity(name: string, address: string, client: ClientKey): Promise<string> {
  const f = hostFiles(name);
  const etc = path.join(f.root, 'etc');
  await writeFile(path.join(etc, 'hostname'), `${name}\n`);
  await writeFile(path.join(etc, 'machine-id'), `${randomUUID().replace(/-/g, '')}\n`, { mode: 0o444 });
  const hosts = await readFile(path.join(etc, 'hosts'), 'utf8').catch(() => '127.0.0.1\tlocalhost\n');
  await writeFile(path.join(etc, 'hosts'), `${hosts.trimEnd()}\n127.0.1.1\t${name}\n`);

  const hostKey = await writeHostKey(f.root, name);
  await writeFile(f.knownHosts, knownHostsLine(address, hostKey));

  const sshDir = path.join(f.root, 'root/.ssh');
  await mkdir(sshDir, { recursive: true, mode: 0o700 });
  await chmod(sshDir, 0o700);
  await writeSecret(path.join(sshDir, 'authorized_keys'), `${client.publicKey}\n`);

  const fixture = path.join(f.root, HOST_PATHS.fixtureGatewayPath);
  await mkdir(path.dirname(fixture), { recursive: true });
  await copyFile(FIXTURE_GATEWAY_SOURCE, fixture);
  await chmod(fixture, 0o644);
  return f.knownHosts;
}
