// Looking at host paths the driver owns: never through a link, and checking owner and mode.
import * as fs from 'node:fs';
import { ComputeError } from '@occ-ssh/protocol';

const { O_RDONLY, O_NOFOLLOW } = fs.constants;

export interface Ownership {
  uid: number;
  gid: number;
  mode: number;
}

export const ROOT_PRIVATE_DIR: Ownership = { uid: 0, gid: 0, mode: 0o711 };
export const ROOT_FILE: Ownership = { uid: 0, gid: 0, mode: 0o600 };

export function ownershipError(path: string, message: string): ComputeError {
  return new ComputeError('ownership', `${path}: ${message}`, { path });
}

export function lstatOrNull(path: string): fs.Stats | null {
  try {
    return fs.lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function describe(stat: fs.Stats): string {
  return `${stat.uid}:${stat.gid} mode ${(stat.mode & 0o7777).toString(8).padStart(4, '0')}`;
}

export function expectOwnership(path: string, stat: fs.Stats, want: Ownership): void {
  if (stat.uid !== want.uid || stat.gid !== want.gid || (stat.mode & 0o7777) !== want.mode) {
    const expected = `${want.uid}:${want.gid} mode ${want.mode.toString(8).padStart(4, '0')}`;
    throw ownershipError(path, `expected ${expected}, found ${describe(stat)}`);
  }
}

/** Reads a regular file without following a link, after checking who owns it. */
export function readOwnedFile(path: string, want: Ownership): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(path, O_RDONLY | O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw ownershipError(path, 'is a symbolic link; refusing to follow it');
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw ownershipError(path, 'expected a regular file');
    expectOwnership(path, stat, want);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** An existing directory must be a real one (never a link) with exactly this ownership; absent is null. */
export function verifyDir(path: string, want: Ownership): fs.Stats | null {
  const stat = lstatOrNull(path);
  if (stat === null) return null;
  if (stat.isSymbolicLink()) throw ownershipError(path, 'is a symbolic link; refusing to follow it');
  if (!stat.isDirectory()) throw ownershipError(path, 'expected a directory');
  expectOwnership(path, stat, want);
  return stat;
}

export function readSymlink(path: string): string | null {
  const stat = lstatOrNull(path);
  if (stat === null) return null;
  if (!stat.isSymbolicLink()) throw ownershipError(path, 'expected a symbolic link');
  return fs.readlinkSync(path);
}

/** The sorted entries of a directory; an absent one has none. */
export function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
