// Builds the release: one self-contained npm package in dist/release/ (a directory and its .tgz).
// The workspace libraries and the helper artifact go inside; runtime dependencies stay pinned and
// external; declarations are bundled into one index.d.ts. The last line printed is the tarball path.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import { PACKAGE_NAME } from './src/version.js';

const workspace = fileURLToPath(new URL('../../', import.meta.url));
const out = `${workspace}dist/release`;
const dir = `${out}/package`;
const own = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as { version: string; description: string; dependencies: Record<string, string> };
const root = JSON.parse(readFileSync(`${workspace}package.json`, 'utf8')) as { license: string; engines: { node: string } };

/** ssh2 is needed only by its transport, loaded on first use; every other dependency is required. */
const OPTIONAL = new Set(['ssh2']);
const runtime = Object.keys(own.dependencies).filter((name) => !name.startsWith('@occ-ssh/'));
/** The exact version installed in the workspace: what the tests ran against is what the package pins. */
const pinned = (names: string[]) => Object.fromEntries(names.map((name) => [name, (JSON.parse(readFileSync(`${workspace}node_modules/${name}/package.json`, 'utf8')) as { version: string }).version]));

rmSync(out, { recursive: true, force: true });
mkdirSync(`${dir}/bin`, { recursive: true });

// JavaScript: the library entry and the CLI share chunks beside them, so the helper lookup
// (relative to the module) finds host-helper.cjs from either.
await build({
  entryPoints: { index: fileURLToPath(new URL('src/index.ts', import.meta.url)), cli: fileURLToPath(new URL('src/cli/occ-ssh.ts', import.meta.url)) },
  outdir: dir,
  bundle: true,
  splitting: true,
  chunkNames: 'shared-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: runtime,
  define: { OCC_SSH_PACKAGED: 'true' },
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(`${workspace}dist/apps/host-helper/host-helper.cjs`, `${dir}/host-helper.cjs`);
writeFileSync(`${dir}/bin/occ-ssh.js`, "#!/usr/bin/env node\nimport '../cli.js';\n");
chmodSync(`${dir}/bin/occ-ssh.js`, 0o755);

// Declarations: tsc emits them for the entry and the libraries it reaches; rollup-plugin-dts
// bundles them into one file, resolving the workspace libraries to their emitted declarations.
const declarations = mkdtempSync(`${tmpdir()}/occ-ssh-release-dts-`);
try {
  execFileSync(
    process.execPath,
    [
      `${workspace}node_modules/typescript/bin/tsc`,
      '-p',
      fileURLToPath(new URL('tsconfig.release.json', import.meta.url)),
      '--noEmit',
      'false',
      '--declaration',
      '--emitDeclarationOnly',
      '--rootDir',
      workspace,
      '--outDir',
      declarations,
    ],
    { stdio: 'inherit' },
  );
  const libraries: Record<string, string> = {
    '@occ-ssh/protocol': `${declarations}/libs/protocol/src/index.d.ts`,
    '@occ-ssh/markers': `${declarations}/libs/markers/src/index.d.ts`,
    '@occ-ssh/ssh-client': `${declarations}/libs/ssh-client/src/index.d.ts`,
  };
  const bundle = await rollup({
    input: `${declarations}/apps/controller/src/index.d.ts`,
    plugins: [{ name: 'workspace-libraries', resolveId: (id: string) => libraries[id] ?? null }, dts()],
    external: (id: string) => runtime.some((name) => id === name || id.startsWith(`${name}/`)) || id.startsWith('node:'),
  });
  await bundle.write({ file: `${dir}/index.d.ts`, format: 'es' });
  await bundle.close();
} finally {
  rmSync(declarations, { recursive: true, force: true });
}

const manifest = {
  name: PACKAGE_NAME,
  version: own.version,
  description: own.description,
  license: root.license,
  type: 'module',
  exports: { '.': { types: './index.d.ts', default: './index.js' } },
  types: './index.d.ts',
  bin: { 'occ-ssh': 'bin/occ-ssh.js' },
  engines: root.engines,
  dependencies: pinned(runtime.filter((name) => !OPTIONAL.has(name))),
  optionalDependencies: pinned(runtime.filter((name) => OPTIONAL.has(name))),
};
writeFileSync(`${dir}/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
writeFileSync(
  `${dir}/README.md`,
  `# ${PACKAGE_NAME}\n\nSSH Compute Driver for OpenClaw Enterprise: an external Compute driver package for OCC.\nSelect it with \`drivers.compute.package: "${PACKAGE_NAME}"\` and pin it to exactly ${own.version}.\nThe \`occ-ssh\` bin is the operator CLI.\n`,
);

const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
console.log(`release: ${dir} (${packed!.files.length} files)`);
console.log(`${out}/${packed!.filename}`);
writeFileSync(`${out}/TARBALL`, `${out}/${packed!.filename}\n`);
