// Packs a finished rootfs into a zstd tarball and unpacks it again, keeping owners, modes and xattrs.
import { spawn } from 'node:child_process';
import { rename, rm } from 'node:fs/promises';
import { toolEnv } from './command.js';

const TAR_FLAGS = ['--numeric-owner', '--xattrs', '--xattrs-include=*', '--acls'];

function waitFor(child: ReturnType<typeof spawn>, what: string): Promise<void> {
  const err: Buffer[] = [];
  child.stderr?.on('data', (b: Buffer) => err.push(b));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${what} failed (${code ?? signal}): ${Buffer.concat(err).toString().trim().slice(-2000)}`));
    });
  });
}

/** tar | zstd into a temporary name, renamed at the end so a half-written tarball is never used. */
export async function packImage(root: string, tarball: string): Promise<void> {
  const partial = `${tarball}.partial-${process.pid}`;
  const tar = spawn('tar', [...TAR_FLAGS, '-C', root, '-cf', '-', '.'], { env: toolEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const zstd = spawn('zstd', ['-q', '-T0', '-3', '-f', '-o', partial], { env: toolEnv(), stdio: ['pipe', 'ignore', 'pipe'] });
  tar.stdout.pipe(zstd.stdin);
  try {
    await Promise.all([waitFor(tar, 'tar'), waitFor(zstd, 'zstd')]);
    await rename(partial, tarball);
  } finally {
    await rm(partial, { force: true });
  }
}

export async function unpackImage(tarball: string, root: string): Promise<void> {
  const zstd = spawn('zstd', ['-q', '-d', '-c', tarball], { env: toolEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const tar = spawn('tar', [...TAR_FLAGS, '-C', root, '-xf', '-'], { env: toolEnv(), stdio: ['pipe', 'ignore', 'pipe'] });
  zstd.stdout.pipe(tar.stdin);
  await Promise.all([waitFor(zstd, 'zstd'), waitFor(tar, 'tar')]);
}
