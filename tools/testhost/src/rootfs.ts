// Makes sure the rootfs of a variant exists: already extracted, unpacked from the cache, or built cold.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { withLock } from './claims.js';
import { log } from './command.js';
import { packImage, unpackImage } from './image-cache.js';
import { ensureMachinePackages } from './machine-packages.js';
import { layout } from './paths.js';
import { isAlive, refOf, selfRef } from './process-identity.js';
import { buildRootfs, deriveRootfs } from './rootfs-build.js';
import { imageChoiceFromEnv, imageId, recipeFor, type ImageChoice, type Variant } from './recipe.js';

export interface RootfsResult {
  path: string;
  built: 'cold' | 'derived' | 'cached' | 'ready';
  ms: number;
}

function rootfsPaths(variant: Variant, choice: ImageChoice) {
  const id = imageId(recipeFor(variant, choice));
  return {
    id,
    root: path.join(layout.rootfsParent(), id),
    tarball: path.join(layout.images(), `${id}.tar.zst`),
  };
}

/** Half-built trees (.build-<id>-<pid>) and tarballs (.partial-<pid>) of dead processes are only clutter. */
async function removeAbandonedBuilds(): Promise<void> {
  for (const dir of [layout.rootfsParent(), layout.images()]) {
    const entries = await readdir(dir).catch(() => [] as string[]);
    for (const e of entries) {
      const m = /^\.build-.*-(\d+)$|\.partial-(\d+)$/.exec(e);
      const pid = Number(m?.[1] ?? m?.[2]);
      if (m && !isAlive(refOf(pid))) await rm(path.join(dir, e), { recursive: true, force: true });
    }
  }
}

/** The image of a variant on the chosen Debian release and Node line (by default the environment's, see imageChoiceFromEnv). */
export async function ensureRootfs(variant: Variant = 'base', choice: ImageChoice = imageChoiceFromEnv()): Promise<RootfsResult> {
  const started = Date.now();
  const p = rootfsPaths(variant, choice);
  const recipe = recipeFor(variant, choice);
  // Also when the image is ready: booting needs nspawn, ip and ssh on the machine.
  await ensureMachinePackages();
  // The finished tree only ever appears by rename, so its presence means it is complete.
  if (existsSync(p.root)) return { path: p.root, built: 'ready', ms: Date.now() - started };
  await mkdir(layout.locks(), { recursive: true });
  return withLock(path.join(layout.locks(), `rootfs-${p.id}`), selfRef(), async () => {
    if (existsSync(p.root)) return { path: p.root, built: 'ready', ms: Date.now() - started };
    await removeAbandonedBuilds();
    await mkdir(layout.rootfsParent(), { recursive: true });
    await mkdir(layout.images(), { recursive: true });
    const work = path.join(layout.rootfsParent(), `.build-${p.id}-${process.pid}`);
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { mode: 0o755 });
    let built: RootfsResult['built'];
    try {
      if (existsSync(p.tarball)) {
        log(`unpacking cached rootfs ${p.id}`);
        await unpackImage(p.tarball, work);
        built = 'cached';
      } else {
        if (recipe.derivedFrom) {
          // From the base image's tarball (made first if need be): only the extra packages are fetched.
          await ensureRootfs('base', choice);
          const base = rootfsPaths('base', choice);
          log(`building rootfs ${p.id} from ${base.id}`);
          await unpackImage(base.tarball, work);
          await deriveRootfs(recipe, work);
          built = 'derived';
        } else {
          log(`building rootfs ${p.id} from scratch`);
          await buildRootfs(recipe, work);
          built = 'cold';
        }
        const packStart = Date.now();
        await packImage(work, p.tarball);
        log(`packing ${path.basename(p.tarball)} took ${((Date.now() - packStart) / 1000).toFixed(1)} s`);
      }
      await rename(work, p.root);
    } catch (e) {
      await rm(work, { recursive: true, force: true });
      throw e;
    }
    const ms = Date.now() - started;
    log(`rootfs ${p.id} ${built} in ${(ms / 1000).toFixed(1)} s`);
    return { path: p.root, built, ms };
  });
}
