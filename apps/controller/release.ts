// Builds the release: one self-contained npm package in dist/release/ (a directory and its .tgz).
// The workspace libraries and the helper artifact go inside; runtime dependencies stay external with
// semver ranges whose floor is the version the lockfile installs (so the tests ran on each floor);
// declarations are bundled into one index.d.ts. The last line printed is the tarball path.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import { loaderVersion } from '@occ-ssh/helper-call';
import { PACKAGE_NAME } from './src/version.js';

const workspace = fileURLToPath(new URL('../../', import.meta.url));
const out = `${workspace}dist/release`;
const dir = `${out}/package`;
const own = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
  version: string;
  description: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
};
const root = JSON.parse(readFileSync(`${workspace}package.json`, 'utf8')) as { license: string; engines: { node: string } };
/** Where the project is published; npm shows these on the package page. */
const REPOSITORY = 'https://github.com/occ-ssh/compute-driver';

/** Dependencies (pino, yaml, zod) and peers (@opentelemetry/api, and ssh2, optional: only its transport loads it). */
const dependencies = Object.fromEntries(Object.entries(own.dependencies).filter(([name]) => !name.startsWith('@occ-ssh/')));
const runtime = [...Object.keys(dependencies), ...Object.keys(own.peerDependencies)];
/** A range's floor must be what the lockfile installs: the lowest version a consumer may get is the one CI tested. */
for (const [name, range] of Object.entries({ ...dependencies, ...own.peerDependencies })) {
  const installed = (JSON.parse(readFileSync(`${workspace}node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;
  if (range !== `^${installed}`) throw new Error(`apps/controller/package.json: ${name} is "${range}", but CI tests ${installed}; the range must be "^${installed}"`);
}

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
  target: 'node22',
  external: runtime,
  define: { OCC_SSH_PACKAGED: 'true' },
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// One version for the package, the controller (DRIVER_VERSION) and the helper it ships, which
// answers every call with it and writes it into its build header.
const helperFile = `${workspace}dist/apps/host-helper/host-helper.cjs`;
const helperVersion = loaderVersion(readFileSync(helperFile));
if (helperVersion !== own.version) throw new Error(`${helperFile} is not the helper of version ${own.version} (${String(helperVersion).slice(0, 80)}): rebuild it`);
copyFileSync(helperFile, `${dir}/host-helper.cjs`);
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
    '@occ-ssh/helper-call': `${declarations}/libs/helper-call/src/index.d.ts`,
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
  keywords: ['openclaw', 'openclaw-enterprise', 'compute-driver', 'ssh', 'systemd'],
  homepage: `${REPOSITORY}#readme`,
  bugs: { url: `${REPOSITORY}/issues` },
  repository: { type: 'git', url: `git+${REPOSITORY}.git` },
  license: root.license,
  type: 'module',
  exports: { '.': { types: './index.d.ts', default: './index.js' }, './package.json': './package.json' },
  types: './index.d.ts',
  bin: { 'occ-ssh': 'bin/occ-ssh.js' },
  engines: root.engines,
  dependencies,
  peerDependencies: own.peerDependencies,
  peerDependenciesMeta: own.peerDependenciesMeta,
};
writeFileSync(`${dir}/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
copyFileSync(fileURLToPath(new URL('README.md', import.meta.url)), `${dir}/README.md`);
copyFileSync(`${workspace}LICENSE`, `${dir}/LICENSE`);

const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
console.log(`release: ${dir} (${packed!.files.length} files)`);
console.log(`${out}/${packed!.filename}`);
writeFileSync(`${out}/TARBALL`, `${out}/${packed!.filename}\n`);
