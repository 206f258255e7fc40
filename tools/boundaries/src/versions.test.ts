// The workspace version check: each mismatch is reported with its file and line, the real
// workspace is clean, and the CLI exit code follows.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkWorkspaceVersions, type Manifest, type RuleId, type Violation } from './versions.js';
import { loadWorkspace } from './collect.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const WORKSPACE = join(HERE, '..', '..', '..');
const CLI = join(HERE, 'cli.ts');
// Resolved here, so the CLI can run from fixture directories outside the workspace.
const TSX = import.meta.resolve('tsx');

const rules = (violations: readonly Violation[]): RuleId[] => violations.map((v) => v.rule);

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
    assert.deepEqual(
      violations.map((v) => `${v.file}:${v.line}:${v.rule}`),
      ['libs/a/package.json:3:workspace-version'],
    );
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
  it('has one workspace version', () => {
    const workspace = loadWorkspace(WORKSPACE);
    assert.ok(workspace);
    assert.equal(workspace.dir, WORKSPACE);
    assert.ok(workspace.manifests.length >= 5, `${workspace.manifests.length} workspace packages`);
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

  it('checks workspace versions from inside a workspace', () => {
    const root = fixture('workspace', {
      'package.json': JSON.stringify({ name: 'root', version: '1.0.0', workspaces: ['libs/*'] }, null, 2),
      'libs/markers/package.json': JSON.stringify({ name: '@occ-ssh/markers', version: '0.9.0' }, null, 2),
      'libs/markers/src/index.ts': 'export const x = 1;\n',
    });
    const result = run(root, 'libs/markers');
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /^libs\/markers\/package\.json:3: workspace-version: /m);
    const fixed = fixture('workspace-clean', {
      'package.json': JSON.stringify({ name: 'root', version: '1.0.0', workspaces: ['libs/*'] }, null, 2),
      'libs/markers/package.json': JSON.stringify({ name: '@occ-ssh/markers', version: '1.0.0' }, null, 2),
    });
    const clean = run(fixed);
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /1 workspace packages at 1\.0\.0/);
  });

  it('exits 2 with usage when called wrongly', () => {
    assert.equal(run(temp, 'a', 'b').status, 2);
    assert.equal(run(temp, '--nope').status, 2);
    assert.equal(run(temp).status, 2, 'no workspace above a temp directory');
  });
});
