// Bundles the helper into one self-contained CommonJS file that needs nothing but Node built-ins.
// The bundle is brotli-compressed inside a small loader (@occ-ssh/helper-call loader.ts), so each operation sends about a third of the bytes.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform, type Plugin } from 'esbuild';
import { renderLoader } from '@occ-ssh/helper-call';
import { exampleArgs } from '@occ-ssh/protocol';

const workspace = fileURLToPath(new URL('../../', import.meta.url));
const version = (JSON.parse(readFileSync(`${workspace}package.json`, 'utf8')) as { version: string }).version;
const outfile = `${workspace}dist/apps/host-helper/host-helper.cjs`;

/**
 * The programs the helper hands to a child `node -e` (String.raw templates without substitutions,
 * readable in the source) are minified too: they are sent with every operation and put on argv.
 */
const childPrograms: Plugin = {
  name: 'child-programs',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\/workspace\/as-account\.ts$/ }, async ({ path }) => {
      const source = readFileSync(path, 'utf8');
      const found = /String\.raw`([^`]*)`/.exec(source);
      if (!found || found[1]!.includes('${')) throw new Error(`${path}: expected one String.raw program without substitutions`);
      const { code } = await transform(found[1]!, { minify: true, loader: 'js', target: 'node20', legalComments: 'none' });
      return { contents: source.replace(found[0], () => JSON.stringify(code.trim())), loader: 'ts' };
    });
  },
};

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
  plugins: [childPrograms],
  write: false,
});
const bundle = result.outputFiles[0]!.contents;
// The operation examples serve tests and fakes; in the bundle they would cost bytes sent with every
// operation. They stay out while nothing in them runs at load (protocol operations/examples.ts).
if (Buffer.from(bundle).includes(exampleArgs('verify-revision').owner.namespace.id)) {
  throw new Error('example values reached the helper bundle: something in an example runs at load, or the helper imports one');
}
// These are loaded by the operations that use them (run/system.ts): at the bundle's load they would
// add their own load to every operation, a verify-revision's included.
const eager = ['child_process', 'http', 'fs/promises'].filter((name) => Buffer.from(bundle).includes(`require("node:${name}")`) || Buffer.from(bundle).includes(`require("${name}")`));
if (eager.length > 0) throw new Error(`the helper bundle loads ${eager.join(', ')} at its start: import them only as types and load them where they are used`);
// Parse check of the inner bundle here, since `node --check` of the artifact sees only the loader.
new Function('require', 'module', 'exports', '__filename', '__dirname', Buffer.from(bundle).toString('utf8'));
const loader = renderLoader(bundle, version);
mkdirSync(dirname(outfile), { recursive: true });
writeFileSync(outfile, loader);
const digest = createHash('sha256').update(bundle).digest('hex');
console.log(`host-helper ${version}: ${outfile} (${loader.length} bytes sent per operation; bundle ${bundle.length} bytes, sha256 ${digest})`);
