// Bundles the campaign's step runner (src/step-runner) into one CommonJS file that needs nothing but
// Node built-ins, as the helper is bundled; the campaign sends it to each host as `node -e`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const workspace = fileURLToPath(new URL('../../', import.meta.url));
const STEP_RUNNER_PATH = `${workspace}dist/tools/chaos/step-runner.cjs`;

const result = await build({
  entryPoints: [fileURLToPath(new URL('src/step-runner/main.ts', import.meta.url))],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  banner: { js: "'use strict';" },
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
});
const bundle = result.outputFiles[0]!.text;
mkdirSync(dirname(STEP_RUNNER_PATH), { recursive: true });
writeFileSync(STEP_RUNNER_PATH, bundle);
console.log(`chaos step runner: ${STEP_RUNNER_PATH} (${bundle.length} bytes)`);
