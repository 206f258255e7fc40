// Bundles the helper into one minified CommonJS file that needs nothing but Node built-ins.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const workspace = fileURLToPath(new URL('../../', import.meta.url));
const version = (JSON.parse(readFileSync(`${workspace}package.json`, 'utf8')) as { version: string }).version;
const outfile = `${workspace}dist/apps/host-helper/host-helper.cjs`;

await build({
  entryPoints: [fileURLToPath(new URL('src/main.ts', import.meta.url))],
  outfile,
  bundle: true,
  minify: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  define: { __HELPER_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
});
console.log(`host-helper ${version}: ${outfile} (${statSync(outfile).size} bytes)`);
