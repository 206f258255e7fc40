// Bundles the helper into one self-contained CommonJS file that needs nothing but Node built-ins.
// The bundle is brotli-compressed inside a small loader (@occ-ssh/helper-call loader.ts), so each operation sends about a third of the bytes.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { renderLoader } from '@occ-ssh/helper-call';

const workspace = fileURLToPath(new URL('../../', import.meta.url));
const version = (JSON.parse(readFileSync(`${workspace}package.json`, 'utf8')) as { version: string }).version;
const outfile = `${workspace}dist/apps/host-helper/host-helper.cjs`;

const result = await build({
  entryPoints: [fileURLToPath(new URL('src/main.ts', import.meta.url))],
  bundle: true,
  minify: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  define: { __HELPER_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
  write: false,
});
const bundle = result.outputFiles[0]!.contents;
// Parse check of the inner bundle here, since `node --check` of the artifact sees only the loader.
new Function('require', 'module', 'exports', '__filename', '__dirname', Buffer.from(bundle).toString('utf8'));
const loader = renderLoader(bundle, version);
mkdirSync(dirname(outfile), { recursive: true });
writeFileSync(outfile, loader);
const digest = createHash('sha256').update(bundle).digest('hex');
console.log(`host-helper ${version}: ${outfile} (${loader.length} bytes sent per operation; bundle ${bundle.length} bytes, sha256 ${digest})`);
