// Bundles the controller library (and its CLI) into dist, next to the helper artifact it ships.
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const workspace = fileURLToPath(new URL('../../', import.meta.url));
const out = `${workspace}dist/apps/controller`;
const helper = `${workspace}dist/apps/host-helper/host-helper.cjs`;
const pkg = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)].filter((name) => !name.startsWith('@occ-ssh/'));

mkdirSync(out, { recursive: true });
const entryPoints = ['src/index.ts', 'src/cli/occ-ssh.ts'];
await build({
  entryPoints: entryPoints.map((entry) => fileURLToPath(new URL(entry, import.meta.url))),
  outdir: out,
  entryNames: '[name]',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external,
  logLevel: 'warning',
});
copyFileSync(helper, `${out}/host-helper.cjs`);
const sha = createHash('sha256').update(readFileSync(helper)).digest('hex');
console.log(`controller: ${out}/index.js, ships host-helper.cjs (${statSync(helper).size} bytes, sha256 ${sha.slice(0, 16)}...)`);
