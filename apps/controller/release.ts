// Builds the release: one self-contained npm package in dist/release/ (a directory and its .tgz).
// The workspace libraries and the helper artifact go inside; runtime dependencies stay external with
// semver ranges whose floor is the version the lockfile installs (so the tests ran on each floor);
// declarations are bundled into one index.d.ts by API Extractor. Before anything is built, the
// release contract must be what the code makes and the version must say it changed (release-gate.ts).
// The last line printed is the tarball path.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { loaderVersion } from '@occ-ssh/helper-call';
import { PACKAGE_NAME } from './src/version.js';
import { contractDigest, releaseContract } from './test/contract.js';
import { releaseGate } from './release-gate.js';

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

// The contract the code makes is the one committed, and the version and CHANGELOG account for it.
const contract = JSON.parse(await releaseContract()) as unknown;
const committed = JSON.parse(readFileSync(`${workspace}docs/api/contract.json`, 'utf8')) as unknown;
if (JSON.stringify(contract) !== JSON.stringify(committed))
  throw new Error('docs/api/contract.json is not what the code makes: run src/release-contract.test.ts with OCC_SSH_WRITE_CONTRACT=1 and name its digest in CHANGELOG.md');
const problems = releaseGate(readFileSync(`${workspace}CHANGELOG.md`, 'utf8'), own.version, contractDigest(contract));
if (problems.length > 0) throw new Error(`the release is refused:\n- ${problems.join('\n- ')}`);

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

// Declarations: tsc emits them for the entry and the libraries it reaches; API Extractor rolls them
// into one file, inlining the workspace libraries (bundledPackages, found through `paths`) and
// leaving the runtime dependencies and peers as imports.
// Inside the workspace, so the runtime dependencies' own declarations resolve from its node_modules.
mkdirSync(`${workspace}dist`, { recursive: true });
const declarations = mkdtempSync(`${workspace}dist/release-dts-`);
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
  rollDeclarations(declarations, `${dir}/index.d.ts`);
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
  // What the tarball holds besides package.json, README.md and LICENSE, which npm always packs.
  files: ['index.js', 'index.d.ts', 'cli.js', 'shared-*.js', 'host-helper.cjs', 'bin/', 'CHANGELOG.md'],
  engines: root.engines,
  dependencies,
  peerDependencies: own.peerDependencies,
  peerDependenciesMeta: own.peerDependenciesMeta,
};
writeFileSync(`${dir}/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
copyFileSync(fileURLToPath(new URL('README.md', import.meta.url)), `${dir}/README.md`);
copyFileSync(`${workspace}LICENSE`, `${dir}/LICENSE`);
copyFileSync(`${workspace}CHANGELOG.md`, `${dir}/CHANGELOG.md`);

const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
console.log(`release: ${dir} (${packed!.files.length} files)`);
console.log(`${out}/${packed!.filename}`);
writeFileSync(`${out}/TARBALL`, `${out}/${packed!.filename}\n`);

/** API Extractor's .d.ts rollup of the emitted `index.d.ts`; any error fails the release (the API report counts the findings). */
function rollDeclarations(emitted: string, file: string): void {
  const libraries = ['protocol', 'markers', 'helper-call', 'ssh-client'];
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: emitted,
      mainEntryPointFilePath: `${emitted}/apps/controller/src/index.d.ts`,
      bundledPackages: libraries.map((name) => `@occ-ssh/${name}`),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
            typeRoots: [`${workspace}node_modules/@types`],
            paths: Object.fromEntries(libraries.map((name) => [`@occ-ssh/${name}`, [`${emitted}/libs/${name}/src/index.d.ts`]])),
          },
          files: [`${emitted}/apps/controller/src/index.d.ts`],
        },
      },
      dtsRollup: { enabled: true, untrimmedFilePath: file },
      apiReport: { enabled: false, reportFileName: 'unused' },
      docModel: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        extractorMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: `${workspace}apps/controller/package.json`,
  });
  const result = Extractor.invoke(config, { localBuild: true, showVerboseMessages: false });
  if (!result.succeeded) throw new Error(`API Extractor could not roll up the declarations (${result.errorCount} errors)`);
}
