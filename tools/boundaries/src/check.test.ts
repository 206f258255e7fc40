// Boundary rules: each forbidden import is caught with its file and line, the real workspace is
// clean, and the CLI's exit code follows.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkProject,
  checkWorkspaceVersions,
  formatViolation,
  isCheckedFile,
  type Manifest,
  moduleReferences,
  type RuleId,
  type SourceFile,
  type Violation,
} from './check.js';
import { loadProject, loadWorkspace } from './collect.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const WORKSPACE = join(HERE, '..', '..', '..');
const CLI = join(HERE, 'cli.ts');
// Resolved here, so the CLI can run from fixture directories outside the workspace.
const TSX = import.meta.resolve('tsx');

const rules = (violations: readonly Violation[]): RuleId[] => violations.map((v) => v.rule);
const check = (name: string, files: SourceFile[]): Violation[] => checkProject({ name, files });
const file = (path: string, ...lines: string[]): SourceFile => ({ path, text: `${lines.join('\n')}\n` });

describe('moduleReferences', () => {
  it('finds every import form with the line of its specifier', () => {
    const text = [
      "import { a } from './a.js';", // 1
      "import type { B } from 'b';", // 2
      "import 'side-effect';", // 3
      "export { c } from './c.js';", // 4
      "export * from '@occ-ssh/protocol';", // 5
      'const d = await import("node:fs");', // 6
      "const e = require('child_process');", // 7
      "import f = require('f');", // 8
      "type G = typeof import('g');", // 9
      'const h = await import(`node:net`);', // 10
      'import {', // 11
      '  x,', // 12
      "} from 'multi';", // 13
    ].join('\n');
    assert.deepEqual(
      moduleReferences('src/x.ts', text).map((r) => [r.kind, r.specifier, r.line]),
      [
        ['import', './a.js', 1],
        ['import', 'b', 2],
        ['import', 'side-effect', 3],
        ['export', './c.js', 4],
        ['export', '@occ-ssh/protocol', 5],
        ['dynamic-import', 'node:fs', 6],
        ['require', 'child_process', 7],
        ['import-equals', 'f', 8],
        ['import-type', 'g', 9],
        ['dynamic-import', 'node:net', 10],
        ['import', 'multi', 13],
      ],
    );
  });

  it('ignores comments, strings, template text and regular expressions', () => {
    const text = [
      "// import { x } from 'node:fs';",
      "/* import('node:fs') require('fs') */",
      "const s = \"import { readFileSync } from 'node:fs';\";",
      "const t = `export * from '../../libs/markers/src/x.js'`;",
      "const r = /[\"'`]/; const q = \"'\";",
      "import { ok } from './ok.js';",
    ].join('\n');
    assert.deepEqual(moduleReferences('src/x.ts', text).map((r) => r.specifier), ['./ok.js']);
  });

  it('reports a computed specifier as undefined', () => {
    const refs = moduleReferences('src/x.ts', "const m = 'node:fs';\nawait import(m);\nrequire(`node:${m}`);\n");
    assert.deepEqual(refs.map((r) => [r.kind, r.specifier, r.line]), [['dynamic-import', undefined, 2], ['require', undefined, 3]]);
  });
});

describe('isCheckedFile', () => {
  it('is every TypeScript file under src/ and build.ts at the root', () => {
    for (const path of ['src/index.ts', 'src/a/b.test.ts', 'src/x.mts', 'build.ts', './src/y.ts']) assert.equal(isCheckedFile(path), true, path);
    for (const path of ['test/x.ts', 'scripts/build.ts', 'src/x.js', 'src/x.json', 'build.mjs', 'vite.config.ts']) assert.equal(isCheckedFile(path), false, path);
  });
});

describe('library rules', () => {
  for (const lib of ['@occ-ssh/protocol', '@occ-ssh/markers']) {
    it(`${lib}: I/O modules are refused in sources, with file and line`, () => {
      const violations = check(lib, [
        file('src/a.ts', "import { createHash } from 'node:crypto';", "import { readFileSync } from 'node:fs';"),
        file('src/b.ts', "export * from 'fs';"),
        file('src/c.ts', "const p = await import('node:fs/promises');", "const cp = require('child_process');"),
        file('src/d.ts', "import 'node:net';", "import 'node:http';", "import 'node:https';", "import 'node:dgram';"),
        file('src/e.ts', "import 'node:dns';", "import 'node:tls';", "import 'node:worker_threads';", "import 'node:cluster';"),
      ]);
      assert.deepEqual(
        violations.map((v) => `${v.file}:${v.line}:${v.rule}:${v.specifier}`),
        [
          'src/a.ts:2:library-io:node:fs',
          'src/b.ts:1:library-io:fs',
          'src/c.ts:1:library-io:node:fs/promises',
          'src/c.ts:2:library-io:child_process',
          'src/d.ts:1:library-io:node:net',
          'src/d.ts:2:library-io:node:http',
          'src/d.ts:3:library-io:node:https',
          'src/d.ts:4:library-io:node:dgram',
          'src/e.ts:1:library-io:node:dns',
          'src/e.ts:2:library-io:node:tls',
          'src/e.ts:3:library-io:node:worker_threads',
          'src/e.ts:4:library-io:node:cluster',
        ],
      );
    });

    it(`${lib}: apps are refused everywhere, tools outside tests`, () => {
      const violations = check(lib, [
        file('src/a.ts', "import { x } from '@occ-ssh/controller';"),
        file('src/b.ts', "import type { Y } from '@occ-ssh/host-helper';"),
        file('src/c.ts', "import { z } from '@occ-ssh/testhost';"),
        file('src/d.test.ts', "import { x } from '@occ-ssh/controller';"),
      ]);
      assert.deepEqual(
        violations.map((v) => `${v.file}:${v.line}:${v.rule}`),
        ['src/a.ts:1:library-imports-app', 'src/b.ts:1:library-imports-app', 'src/c.ts:1:library-imports-tools', 'src/d.test.ts:1:library-imports-app'],
      );
    });

    it(`${lib}: tests may use I/O and tools`, () => {
      assert.deepEqual(
        check(lib, [
          file('src/x.test.ts', "import { readFileSync } from 'node:fs';", "import { spawnSync } from 'node:child_process';", "import { t } from '@occ-ssh/testhost';"),
        ]),
        [],
      );
    });

    it(`${lib}: computed specifiers are refused in sources`, () => {
      assert.deepEqual(rules(check(lib, [file('src/a.ts', "const name = 'fs';", 'await import(name);')])), ['non-literal-specifier']);
    });
  }

  it('the real library dependencies are allowed', () => {
    assert.deepEqual(
      check('@occ-ssh/markers', [
        file('src/a.ts', "import * as z from 'zod/mini';", "import { createHash } from 'node:crypto';", "import { resourceId } from '@occ-ssh/protocol';", "import { b } from './b.js';"),
      ]),
      [],
    );
  });
});

describe('host-helper rules', () => {
  const HELPER = '@occ-ssh/host-helper';

  it('may import protocol, markers, zod/mini, built-ins and its own src', () => {
    assert.deepEqual(
      check(HELPER, [
        file(
          'src/ops/a.ts',
          "import { envelope } from '@occ-ssh/protocol';",
          "import { agentLayout } from '@occ-ssh/markers';",
          "import * as z from 'zod/mini';",
          "import { readFileSync } from 'node:fs';",
          "import { spawn } from 'child_process';",
          "import { context } from '../context.js';",
          "import { b } from './b.js';",
        ),
      ]),
      [],
    );
  });

  it('@occ-ssh/controller in the helper is a violation', () => {
    const violations = check(HELPER, [file('src/main.ts', "import { SshComputeDriver } from '@occ-ssh/controller';")]);
    assert.deepEqual(violations.map((v) => `${v.file}:${v.line}:${v.rule}:${v.specifier}`), ['src/main.ts:1:helper-allowlist:@occ-ssh/controller']);
  });

  it('refuses other packages in sources: zod, ssh2, esbuild, tools', () => {
    const violations = check(HELPER, [
      file('src/a.ts', "import { z } from 'zod';", "import { Client } from 'ssh2';", "import { build } from 'esbuild';", "import { t } from '@occ-ssh/testhost';"),
    ]);
    assert.deepEqual(violations.map((v) => `${v.line}:${v.rule}:${v.specifier}`), [
      '1:helper-allowlist:zod',
      '2:helper-allowlist:ssh2',
      '3:helper-allowlist:esbuild',
      '4:helper-allowlist:@occ-ssh/testhost',
    ]);
  });

  it('build.ts may also import esbuild; tests may also import tools and node:test', () => {
    assert.deepEqual(
      check(HELPER, [
        file('build.ts', "import { build } from 'esbuild';", "import { readFileSync } from 'node:fs';"),
        file('src/a.test.ts', "import { t } from '@occ-ssh/testhost';", "import { it } from 'node:test';", "import { a } from './a.js';"),
      ]),
      [],
    );
    assert.deepEqual(rules(check(HELPER, [file('build.ts', "import { t } from '@occ-ssh/testhost';")])), ['helper-allowlist']);
    assert.deepEqual(rules(check(HELPER, [file('src/a.test.ts', "import { build } from 'esbuild';")])), ['helper-allowlist']);
  });

  it('relative imports must stay inside src/', () => {
    assert.deepEqual(rules(check(HELPER, [file('src/a.ts', "import { x } from '../build.js';")])), ['helper-outside-src']);
    assert.deepEqual(check(HELPER, [file('build.ts', "import { main } from './src/main.js';")]), []);
  });

  it('computed specifiers are refused in sources', () => {
    assert.deepEqual(rules(check(HELPER, [file('src/a.ts', 'require(process.env.MODULE!);')])), ['non-literal-specifier']);
  });
});

describe('rules for every project', () => {
  for (const name of ['@occ-ssh/host-helper', '@occ-ssh/controller', '@occ-ssh/testhost', '@occ-ssh/markers']) {
    it(`${name}: a deep ../../libs/markers/src/x.js import is a violation`, () => {
      const violations = check(name, [file('src/x.ts', "import { y } from '../../libs/markers/src/x.js';")]);
      assert.deepEqual(violations.map((v) => `${v.file}:${v.line}:${v.rule}`), ['src/x.ts:1:escapes-project']);
    });

    it(`${name}: @occ-ssh/<x>/src/... is a violation`, () => {
      const violations = check(name, [file('src/x.ts', '', "export { y } from '@occ-ssh/protocol/src/fields.js';")]);
      assert.deepEqual(violations.map((v) => `${v.file}:${v.line}:${v.rule}`), ['src/x.ts:2:deep-import']);
    });
  }

  it('climbing is judged from the importing file: deep inside src may go up to the project root', () => {
    assert.deepEqual(check('@occ-ssh/controller', [file('src/a/b/c.ts', "import { x } from '../../d.js';")]), []);
    assert.deepEqual(rules(check('@occ-ssh/controller', [file('src/a/b/c.ts', "import { x } from '../../../../x.js';")])), ['escapes-project']);
    assert.deepEqual(rules(check('@occ-ssh/controller', [file('build.ts', "import { x } from '../tools/src/x.js';")])), ['escapes-project']);
  });

  it('absolute module paths are a violation', () => {
    assert.deepEqual(rules(check('@occ-ssh/testhost', [file('src/x.ts', "import '/work/libs/markers/src/index.ts';", "import 'file:///x.js';")])), [
      'escapes-project',
      'escapes-project',
    ]);
  });

  it("a project's test/ folder is for its tests only", () => {
    const violations = check('@occ-ssh/controller', [
      file('src/a.ts', "import { FakeExecutor } from '../test/fakes.js';"),
      file('src/b/c.test.ts', "import { FakeExecutor } from '../../test/fakes.js';"),
    ]);
    assert.deepEqual(violations.map((v) => `${v.file}:${v.line}:${v.rule}:${v.specifier}`), ['src/a.ts:1:source-imports-test:../test/fakes.js']);
  });

  it('applications import tools only from tests', () => {
    const violations = check('@occ-ssh/controller', [
      file('src/a.ts', "import { FakeExecutor } from '@occ-ssh/test-support';"),
      file('src/b.ts', "import { runCampaign } from '@occ-ssh/chaos';"),
      file('src/c.test.ts', "import { FakeExecutor } from '@occ-ssh/test-support';", "import { startTestHost } from '@occ-ssh/testhost';"),
    ]);
    assert.deepEqual(violations.map((v) => `${v.file}:${v.line}:${v.rule}:${v.specifier}`), [
      'src/a.ts:1:app-imports-tools:@occ-ssh/test-support',
      'src/b.ts:1:app-imports-tools:@occ-ssh/chaos',
    ]);
  });

  it('the public entry of another project is fine', () => {
    assert.deepEqual(check('@occ-ssh/controller', [file('src/x.ts', "import { renderUnit } from '@occ-ssh/markers';", "import { x } from '@occ-ssh/host-helper';")]), []);
  });

  it('files outside src/ and build.ts are not checked', () => {
    assert.deepEqual(check('@occ-ssh/markers', [file('scripts/x.ts', "import 'node:fs';"), file('README.md', "import 'node:fs';")]), []);
  });

  it('formats violations as file:line: rule: message', () => {
    const [violation] = check('@occ-ssh/markers', [file('src/x.ts', '', "import 'node:fs';")]);
    assert.ok(violation);
    assert.match(formatViolation(violation), /^src\/x\.ts:2: library-io: /);
    assert.match(formatViolation(violation, 'libs/markers/src/x.ts'), /^libs\/markers\/src\/x\.ts:2: /);
  });
});

describe('checkWorkspaceVersions', () => {
  const manifest = (path: string, value: object): Manifest => ({ path, text: `${JSON.stringify(value, null, 2)}\n` });
  const root = manifest('package.json', { name: 'root', version: '0.1.0', workspaces: ['libs/*'] });

  it('is clean when every workspace uses the root version', () => {
    assert.deepEqual(
      checkWorkspaceVersions(root, [
        manifest('libs/a/package.json', { name: '@occ-ssh/a', version: '0.1.0' }),
        manifest('libs/b/package.json', { name: '@occ-ssh/b', version: '0.1.0', dependencies: { '@occ-ssh/a': '0.1.0', zod: '^4' } }),
      ]),
      [],
    );
  });

  it('reports a different version on the line of its version key', () => {
    const violations = checkWorkspaceVersions(root, [manifest('libs/a/package.json', { name: '@occ-ssh/a', version: '0.2.0' })]);
    assert.deepEqual(violations.map((v) => `${v.file}:${v.line}:${v.rule}`), ['libs/a/package.json:3:workspace-version']);
  });

  it('reports a missing version and an internal dependency on another version', () => {
    const violations = checkWorkspaceVersions(root, [
      manifest('libs/a/package.json', { name: '@occ-ssh/a' }),
      manifest('libs/b/package.json', { name: '@occ-ssh/b', version: '0.1.0', devDependencies: { '@occ-ssh/a': '^0.1.0' } }),
    ]);
    assert.deepEqual(rules(violations), ['workspace-version', 'workspace-dependency']);
    assert.equal(violations[1]?.line, 5);
  });

  it('reports an unreadable manifest', () => {
    assert.deepEqual(rules(checkWorkspaceVersions(root, [{ path: 'libs/a/package.json', text: '{' }])), ['manifest']);
    assert.deepEqual(rules(checkWorkspaceVersions({ path: 'package.json', text: '{}' }, [])), ['manifest']);
  });
});

describe('the real workspace', () => {
  const workspace = loadWorkspace(WORKSPACE);

  it('finds the workspace and all five projects', () => {
    assert.ok(workspace);
    assert.equal(workspace.dir, WORKSPACE);
    const names = workspace.packageDirs.map((dir) => loadProject(dir).name).sort();
    for (const name of ['@occ-ssh/controller', '@occ-ssh/host-helper', '@occ-ssh/markers', '@occ-ssh/protocol', '@occ-ssh/testhost']) {
      assert.ok(names.includes(name), name);
    }
  });

  it('every project is clean', () => {
    assert.ok(workspace);
    for (const dir of workspace.packageDirs) {
      const project = loadProject(dir);
      assert.ok(project.files.length > 0, `${project.name} has files to check`);
      const violations = checkProject(project).map((v) => formatViolation(v));
      assert.deepEqual(violations, [], project.name);
    }
  });

  it('has one workspace version', () => {
    assert.ok(workspace);
    assert.deepEqual(checkWorkspaceVersions(workspace.root, workspace.manifests), []);
  });
});

describe('cli', () => {
  const temp = mkdtempSync(join(tmpdir(), 'occ-boundaries-'));
  after(() => rmSync(temp, { recursive: true, force: true }));

  function fixture(name: string, files: Record<string, string>): string {
    const dir = join(temp, name);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }
  const run = (cwd: string, ...args: string[]) => spawnSync(process.execPath, ['--import', TSX, CLI, ...args], { cwd, encoding: 'utf8' });

  it('exits 1 listing every violation as file:line', () => {
    const dir = fixture('dirty', {
      'package.json': JSON.stringify({ name: '@occ-ssh/markers', version: '0.1.0' }),
      'src/index.ts': "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
      'src/deep.ts': "\nimport { y } from '../../libs/protocol/src/fields.js';\n",
    });
    const result = run(dir, '.');
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /^src\/deep\.ts:2: escapes-project: /m);
    assert.match(result.stderr, /^src\/index\.ts:1: library-io: /m);
    assert.match(result.stderr, /2 violations/);
  });

  it('exits 0 on a clean project and reports file paths relative to the working directory', () => {
    const dir = fixture('clean', {
      'package.json': JSON.stringify({ name: '@occ-ssh/markers', version: '0.1.0' }),
      'src/index.ts': "import { createHash } from 'node:crypto';\nexport const h = createHash;\n",
    });
    const clean = run(dir, '.');
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /@occ-ssh\/markers: 1 files clean/);
  });

  it('checks workspace versions from inside a workspace', () => {
    const root = fixture('workspace', {
      'package.json': JSON.stringify({ name: 'root', version: '1.0.0', workspaces: ['libs/*'] }, null, 2),
      'libs/markers/package.json': JSON.stringify({ name: '@occ-ssh/markers', version: '0.9.0' }, null, 2),
      'libs/markers/src/index.ts': 'export const x = 1;\n',
    });
    const result = run(root, 'libs/markers');
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /^libs\/markers\/package\.json:3: workspace-version: /m);
  });

  it('exits 2 with usage when called wrongly', () => {
    assert.equal(run(temp).status, 2);
  });
});
