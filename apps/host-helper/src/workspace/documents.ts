// The replacement rules for the workspace documents, and their checks as the Agent's account: a
// document is written only over nothing, OpenClaw's stock text or the submitted text itself.
import { sha256Hex } from '@occ-ssh/markers';
import type { WorkspaceFileName } from '@occ-ssh/protocol';
import { ownershipError } from '../fs/safe-read.js';
import type { HostRunner } from '../run/system.js';
import { asAccount, type AccountIds, type Inspection } from './as-account.js';

export interface Document {
  name: WorkspaceFileName;
  content: string;
}

export interface WorkspaceTarget {
  nodePath: string;
  account: AccountIds;
  dir: string;
}

/** Per document, the digests it may hold and still be replaced: the stock one (when known) and the submitted one. */
export function replaceableDigests(documents: readonly Document[], stock: Partial<Record<string, string>>): Record<string, string[]> {
  return Object.fromEntries(documents.map((document) => [document.name, [stock[document.name], sha256Hex(document.content)].filter((digest): digest is string => digest !== undefined)]));
}

export function inspectWorkspace(runner: HostRunner, target: WorkspaceTarget, names: readonly string[], signal: AbortSignal): Promise<Inspection> {
  return asAccount<Inspection>(runner, target.nodePath, target.account, { op: 'inspect', dir: target.dir, names }, signal);
}

/**
 * Security: refuses (permanently, naming the path, never the content) a workspace that is not a real
 * directory, a document that is a link or not a regular file, and one the user or the Agent wrote.
 */
export function refuseConflicts(dir: string, inspection: Inspection, replaceable: Record<string, string[]>): void {
  if (inspection.dir === 'other') throw ownershipError(dir, 'the workspace is not a directory (a link or a file); refusing to deliver through it');
  for (const [name, digests] of Object.entries(replaceable)) {
    const entry = inspection.files[name];
    if (!entry || entry.kind === 'absent') continue;
    const path = `${dir}/${name}`;
    if (entry.kind === 'other') throw ownershipError(path, 'is a link or not a regular file; refusing to follow or replace it');
    if (!digests.includes(entry.sha256)) throw ownershipError(path, "holds content that is neither OpenClaw's stock document nor the submitted one; refusing to overwrite it");
  }
}

/** Checks the workspace again as the account, then writes every document that is not already the submitted text. */
export async function writeDocuments(runner: HostRunner, target: WorkspaceTarget, documents: readonly Document[], replaceable: Record<string, string[]>, signal: AbortSignal): Promise<void> {
  const inspection = await inspectWorkspace(
    runner,
    target,
    documents.map((document) => document.name),
    signal,
  );
  if (inspection.dir !== 'dir') throw ownershipError(target.dir, 'native setup left no workspace directory');
  refuseConflicts(target.dir, inspection, replaceable);
  const pending = documents.filter((document) => {
    const entry = inspection.files[document.name];
    return !(entry?.kind === 'file' && entry.sha256 === sha256Hex(document.content));
  });
  // Always sent: the write also clears temps an earlier, killed write left, even when every document is already in place.
  const sweep = documents.map((document) => document.name);
  await asAccount(runner, target.nodePath, target.account, { op: 'write', dir: target.dir, files: pending, sweep }, signal);
}

/** After the second native setup: every document holds exactly the submitted text. */
export async function verifyDocuments(runner: HostRunner, target: WorkspaceTarget, digests: Record<string, string>, signal: AbortSignal): Promise<void> {
  const inspection = await inspectWorkspace(runner, target, Object.keys(digests), signal);
  for (const [name, digest] of Object.entries(digests)) {
    const entry = inspection.files[name];
    if (inspection.dir !== 'dir' || entry?.kind !== 'file' || entry.sha256 !== digest) {
      throw ownershipError(`${target.dir}/${name}`, 'does not hold the submitted document after native setup; the setup is not recorded complete');
    }
  }
}
