// The shared root: the inventory and serialization boundary of every Driver on this host.
import { mkdirSync } from 'node:fs';
import { rootLayout } from '@occ-ssh/markers';
import { ensureDir, parentOf } from './fs/atomic-write.js';
import { beforeChange } from './run/change-guard.js';
import type { OpContext } from './context/context.js';
import { ROOT_PRIVATE_DIR, lstatOrNull, ownershipError } from './fs/safe-read.js';

/**
 * Creates the root (mode 0711) or accepts an operator-made one that is root-owned and not writable by
 * others. Before the lock (the lock file lives in the root), and like every change through the one
 * per-change check (run/change-guard.ts), which dispatch installs first.
 */
export function ensureRoot(ctx: OpContext): void {
  const { root, accounts, namespaces } = rootLayout(ctx.runtime.root);
  const stat = lstatOrNull(root);
  if (stat === null) {
    beforeChange();
    mkdirSync(parentOf(root), { recursive: true, mode: 0o755 });
    ensureDir(root, ROOT_PRIVATE_DIR);
  } else if (!stat.isDirectory() || stat.isSymbolicLink() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw ownershipError(root, 'the runtime root must be a root-owned directory not writable by group or others');
  }
  ensureDir(accounts, ROOT_PRIVATE_DIR);
  ensureDir(namespaces, ROOT_PRIVATE_DIR);
}
