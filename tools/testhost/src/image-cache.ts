// Packs a finished rootfs into a zstd tarball and unpacks it again, keeping owners, modes and xattrs.
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { start, succeeded, type Started } from '@occ-ssh/ssh-client';
import { toolEnv } from './command.js';

const TAR_FLAGS = ['--numeric-owner', '--xattrs', '--xattrs-include=*', '--acls'];

/** Each stage of a pipeline: rejects with its stderr tail unless it exited 0. */
async function waitFor(stage: Started, what: string): Promise<void> {
  const r = await stage.done;
  if (!succeeded(r)) throw new Error(`${what} failed (${r.spawnError ?? r.exitCode ?? r.signal}): ${r.stderrHead.trim().slice(-2000)}`);
}

/** No stage of packing or unpacking a rootfs takes this long; one that does is stuck. */
const STAGE_TIMEOUT_MS = 60 * 60_000;

/** A pipeline stage: its stdout left for the next stage, or its stdin the previous stage's stdout. */
const stage = (cmd: string, args: string[], flow: { pipeStdout: true } | { stdin: Readable }) =>
  start(cmd, args, { env: toolEnv(), timeoutMs: STAGE_TIMEOUT_MS, killGraceMs: 0, stderrKeptBytes: 64 * 1024, ...flow });

/** tar | zstd into a temporary name, renamed at the end so a half-written tarball is never used. */
export async function packImage(root: string, tarball: string): Promise<void> {
  const partial = `${tarball}.partial-${process.pid}`;
  const tar = stage('tar', [...TAR_FLAGS, '-C', root, '-cf', '-', '.'], { pipeStdout: true });
  const zstd = stage('zstd', ['-q', '-T0', '-3', '-f', '-o', partial], { stdin: tar.child.stdout! });
  try {
    await Promise.all([waitFor(tar, 'tar'), waitFor(zstd, 'zstd')]);
    await rename(partial, tarball);
  } finally {
    await rm(partial, { force: true });
  }
}

export async function unpackImage(tarball: string, root: string): Promise<void> {
  const zstd = stage('zstd', ['-q', '-d', '-c', tarball], { pipeStdout: true });
  const tar = stage('tar', [...TAR_FLAGS, '-C', root, '-xf', '-'], { stdin: zstd.child.stdout! });
  await Promise.all([waitFor(zstd, 'zstd'), waitFor(tar, 'tar')]);
}
