// Reads and writes JSON markers: root-owned 0600, schema-checked, owner compared exactly.
import { markerText, type TreeReader } from '@occ-ssh/markers';
import type * as z from 'zod/mini';
import { writeFileAtomic } from './atomic-write.js';
import { ROOT_FILE, listDir, lstatOrNull, ownershipError, readOwnedFile } from './safe-read.js';

type Marker = Parameters<typeof markerText>[0];

/** The marker at `path`, or null when absent; anything unreadable or malformed is an ownership failure. */
export function readMarker<S extends z.ZodMiniType>(path: string, schema: S): z.infer<S> | null {
  const bytes = readOwnedFile(path, ROOT_FILE);
  if (bytes === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw ownershipError(path, 'marker is not valid JSON');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw ownershipError(path, 'marker does not have the expected format');
  return parsed.data;
}

export function writeMarker(path: string, marker: Marker): void {
  writeFileAtomic(path, markerText(marker), ROOT_FILE);
}

/** Security: a marker that exists must name exactly the expected owner; it is never adopted. */
export function expectOwner(path: string, marker: Record<string, unknown>, want: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(want)) {
    if (marker[key] !== value) {
      throw ownershipError(path, `marker belongs to a different ${key.replace(/Id$/, '')} (${key} does not match)`);
    }
  }
}

/**
 * The host tree as libs/markers reads it, through the no-follow, ownership-checked reads above.
 * Security: a marker is read only inside a real directory; a link or a file where a directory of
 * the tree should be is refused, never followed.
 */
export const hostTree: TreeReader = {
  list: listDir,
  marker: (path, schema) => {
    const dir = path.slice(0, path.lastIndexOf('/'));
    const stat = lstatOrNull(dir);
    if (stat && !stat.isDirectory()) throw ownershipError(dir, 'expected a directory, found a link or a file');
    return readMarker(path, schema);
  },
};
