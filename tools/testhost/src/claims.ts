// Race-free ownership across processes: a directory appears atomically with its owner record inside.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { runSync } from './command.js';
import { isAlive, sleep, type ProcessRef } from './process-identity.js';

export interface OwnerRecord {
  owner: ProcessRef;
  [key: string]: unknown;
}

const OWNER_FILE = 'owner.json';

/** A host's state can hold millions of entries; no honest removal of it takes this long. */
const REMOVAL_TIMEOUT_MS = 15 * 60_000;

/**
 * Removes a tree with a child `rm`, synchronously (exit handlers use it): whatever a test planted in
 * a host, thousands of levels deep (Node 20's recursive rmSync overflows its stack at about 2,500)
 * or millions of entries, it never follows a link and never crosses into a mount still inside.
 * Returns the problem, or null once `dir` is gone.
 */
export function removeTreeSync(dir: string): string | null {
  const r = runSync('rm', ['--recursive', '--force', '--one-file-system', '--', dir], REMOVAL_TIMEOUT_MS);
  if (r.code === 0) return null;
  const why = r.stderr.trim().split('\n').slice(-3).join('; ');
  return `rm -rf ${dir} failed (${r.code === null ? `signal ${r.signal ?? '?'}` : `exit ${r.code}`})${why ? `: ${why}` : ''}`;
}

function tempSibling(target: string, tag: string): string {
  return path.join(path.dirname(target), `.${tag}-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * Creates `dir` holding owner.json, or returns false if it already exists. The record is written
 * into a hidden directory first and renamed into place, so nobody ever sees a claim without owner.
 */
export function tryClaim(dir: string, record: OwnerRecord): boolean {
  mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = tempSibling(dir, 'claim');
  mkdirSync(tmp);
  writeFileSync(path.join(tmp, OWNER_FILE), JSON.stringify(record));
  try {
    renameSync(tmp, dir);
    return true;
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTEMPTY') return false;
    throw e;
  }
}

export function readClaim(dir: string): OwnerRecord | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, OWNER_FILE), 'utf8')) as OwnerRecord;
  } catch {
    return undefined;
  }
}

export function updateClaim(dir: string, record: OwnerRecord): void {
  const tmp = path.join(dir, `.${OWNER_FILE}.${process.pid}`);
  writeFileSync(tmp, JSON.stringify(record));
  renameSync(tmp, path.join(dir, OWNER_FILE));
}

/** Renames the claim away first, so a concurrent claimer never lands in a half-deleted directory. */
export function releaseClaim(dir: string): void {
  const tomb = tempSibling(dir, 'released');
  try {
    renameSync(dir, tomb);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  const problem = removeTreeSync(tomb);
  if (problem) throw new Error(problem);
}

export function claimIsStale(dir: string): boolean {
  const rec = readClaim(dir);
  return rec === undefined || !isAlive(rec.owner);
}

/**
 * Removes a claim whose owner is dead. Two processes may notice the same dead claim; a second,
 * short-lived "breaker" claim lets only one of them remove it, and it re-checks under that claim
 * so a fresh claim made in between is never removed.
 */
export function removeStaleClaim(dir: string, me: ProcessRef): boolean {
  const breaker = `${dir}.break`;
  if (!tryClaim(breaker, { owner: me })) {
    if (claimIsStale(breaker)) releaseClaim(breaker);
    return false;
  }
  try {
    const rec = readClaim(dir);
    if (rec === undefined || isAlive(rec.owner)) return false;
    releaseClaim(dir);
    return true;
  } finally {
    releaseClaim(breaker);
  }
}

/** Holds a cross-process lock while fn runs; a lock left by a dead process is taken over. */
export async function withLock<T>(dir: string, me: ProcessRef, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    if (tryClaim(dir, { owner: me })) break;
    if (claimIsStale(dir) && removeStaleClaim(dir, me)) continue;
    await sleep(250);
  }
  try {
    return await fn();
  } finally {
    releaseClaim(dir);
  }
}
