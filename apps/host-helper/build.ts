// Bundles the helper into one self-contained CommonJS file that needs nothing but Node built-ins.
// The bundle is brotli-compressed inside a small loader, so each operation sends about a third of the bytes.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { build } from 'esbuild';

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
const packed = brotliCompressSync(bundle, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } });
// The loader records the SHA-256 of the code it runs, which the helper writes into its journal audit lines.
const loader =
  `"use strict";// occ-ssh host helper ${version}\n` +
  `const bundle=require("zlib").brotliDecompressSync(Buffer.from("${packed.toString('base64')}","base64"));` +
  `globalThis[Symbol.for("occ-ssh.helper-digest")]=require("crypto").createHash("sha256").update(bundle).digest("hex");` +
  `new Function("require","module","exports","__filename","__dirname",bundle.toString())(require,module,exports,__filename,__dirname);\n`;
mkdirSync(dirname(outfile), { recursive: true });
writeFileSync(outfile, loader);
const digest = createHash('sha256').update(bundle).digest('hex');
console.log(`host-helper ${version}: ${outfile} (${loader.length} bytes sent per operation; bundle ${bundle.length} bytes, sha256 ${digest})`);
