// Changes to host paths that readers see whole or not at all: temp + fsync + rename + directory fsync,
// directories created complete with their contents, removals made durable, and the sweep of the
// temps an interrupted change left. None of them follows a link.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { beforeChange } from '../run/change-guard.js';
import { expectOwnership, lstatOrNull, ownershipError, type Ownership } from './safe-read.js';
import type { HostRunner } from '../run/system.js';
import { removeTreeBounded } from './tree-removal.js';

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY, O_NOFOLLOW, O_DIRECTORY } = fs.constants;

export const TEMP_MARK = '.tmp-';

/**
 * Creates a directory with exact ownership, or verifies an existing one. `repairMode` re-asserts
 * the mode of an Agent-owned directory through a no-follow descriptor (the Agent may chmod its own).
 */
export function ensureDir(path: string, want: Ownership, options: { repairMode?: boolean } = {}): 'created' | 'verified' {
  const stat = lstatOrNull(path);
  if (stat === null) {
    // Owner and mode are set on a temp directory renamed into place: a kill in between leaves only
    // the temp, which the next creation sweeps, never a directory with the wrong owner.
    createDirAtomic(path, want, () => undefined);
    return 'created';
  }
  if (stat.isSymbolicLink()) throw ownershipError(path, 'is a symbolic link; refusing to follow it');
  if (!stat.isDirectory()) throw ownershipError(path, 'expected a directory');
  if (options.repairMode && stat.uid === want.uid && stat.gid === want.gid && (stat.mode & 0o7777) !== want.mode) {
    beforeChange();
    withDirFd(path, (fd) => fs.fchmodSync(fd, want.mode));
    return 'verified';
  }
  expectOwnership(path, stat, want);
  return 'verified';
}

function withDirFd(path: string, action: (fd: number) => void): void {
  const fd = fs.openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    action(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function syncDir(path: string): void {
  withDirFd(path, (fd) => fs.fsyncSync(fd));
}

export function parentOf(path: string): string {
  const index = path.lastIndexOf('/');
  return index <= 0 ? '/' : path.slice(0, index);
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** What `writeFileAtomic` refuses to replace; read phases call it first, so the refusal comes before any change. */
export function refuseDirectory(path: string): void {
  if (lstatOrNull(path)?.isDirectory()) throw ownershipError(path, 'expected a file, found a directory');
}

/** temp file + fsync + rename + directory fsync: readers see the old bytes or the new, never half. */
export function writeFileAtomic(path: string, data: string | Buffer, want: Ownership): void {
  beforeChange();
  const dir = parentOf(path);
  const temp = tempSibling(path);
  const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    fs.fchownSync(fd, want.uid, want.gid);
    fs.fchmodSync(fd, want.mode);
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    refuseDirectory(path);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  renameIntoPlace(temp, path);
  syncDir(dir);
}

/** Renames a finished temp onto `path`; if the rename fails, the temp goes too. */
function renameIntoPlace(temp: string, path: string): void {
  try {
    fs.renameSync(temp, path);
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A fresh temp name beside `path`, after removing the temps an interrupted earlier write of the same
 * path left there (the helper holds the host lock, so no other write of `path` is in flight).
 */
function tempSibling(path: string): string {
  const prefix = `.${baseOf(path)}${TEMP_MARK}`;
  sweepTemps(parentOf(path), prefix);
  return `${parentOf(path)}/${prefix}${randomBytes(6).toString('hex')}`;
}

/**
 * Creates a directory complete with its contents in one step: `fill` writes into a private temp
 * directory, which is then renamed onto `path` (absent, or an empty leftover). A directory the
 * driver owns therefore never exists without its marker, and an interrupted creation leaves only a
 * temp directory that `sweepTemps` removes.
 */
export function createDirAtomic(path: string, want: Ownership, fill: (dir: string) => void): void {
  beforeChange();
  const dir = parentOf(path);
  const temp = tempSibling(path);
  fs.mkdirSync(temp, { mode: 0o700 });
  try {
    withDirFd(temp, (fd) => {
      fs.fchownSync(fd, want.uid, want.gid);
      fs.fchmodSync(fd, want.mode);
    });
    fill(temp);
    fs.renameSync(temp, path);
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  syncDir(dir);
}

/** Points `path` at `target` by renaming a fresh link over it, so it is never missing or torn. */
export function replaceSymlink(path: string, target: string): void {
  const existing = lstatOrNull(path);
  if (existing && !existing.isSymbolicLink()) throw ownershipError(path, 'expected a symbolic link');
  beforeChange();
  const dir = parentOf(path);
  const temp = tempSibling(path);
  fs.symlinkSync(target, temp);
  renameIntoPlace(temp, path);
  syncDir(dir);
}

/** Removes a file or link (never a directory); absent is fine. */
export function removeFile(path: string): boolean {
  const stat = lstatOrNull(path);
  if (stat === null) return false;
  if (stat.isDirectory()) throw ownershipError(path, 'expected a file, found a directory');
  beforeChange();
  fs.unlinkSync(path);
  syncDir(parentOf(path));
  return true;
}

/**
 * Removes a tree without following links inside it, in a child rm (see tree-removal.ts): however deep
 * or wide the tree, the helper's heartbeats, deadline and cancellation keep working meanwhile.
 */
export async function removeTree(runner: HostRunner, path: string, signal: AbortSignal): Promise<boolean> {
  const stat = lstatOrNull(path);
  if (stat === null) return false;
  beforeChange();
  await removeTreeBounded(runner, path, signal);
  syncDir(parentOf(path));
  return true;
}

/**
 * Deletes temp files an interrupted write left in a directory the driver owns. Security: a temp is
 * the helper's own, made in a root-owned directory outside the unit's ReadWritePaths, so no tenant
 * can have filled it; a tenant's own trees are removed in the removal area instead (lock/removal-area.ts).
 */
export function sweepTemps(dir: string, prefix = '.'): void {
  // Only a real directory is swept: never through a link to somewhere else.
  if (!lstatOrNull(dir)?.isDirectory()) return;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.includes(TEMP_MARK)) continue;
    beforeChange();
    fs.rmSync(`${dir}/${name}`, { force: true, recursive: true });
  }
}
