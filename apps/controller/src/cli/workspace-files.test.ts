// deploy's workspace flags: parsed only for deploy, read from a directory or named files, refused
// when misnamed, doubled, oversized or not UTF-8, and handed over as OCC's pending setup.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, test } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { revisionFor } from '../../test/fakes.js';
import { UsageError, parseCli, type CliOptions } from './args.js';
import { Ledger } from './ledger.js';
import { workspaceContext, workspaceFilesFrom } from './workspace-files.js';

const dir = mkdtempSync(`${tmpdir()}/occ-ws-cli-`);
const profile = `${dir}/profile`;
mkdirSync(profile);
writeFileSync(`${profile}/SOUL.md`, '# Soul\n');
writeFileSync(`${profile}/USER.md`, '# User\n');
writeFileSync(`${profile}/NOTES.md`, 'ignored\n');
mkdirSync(`${dir}/other`);
writeFileSync(`${dir}/other/SOUL.md`, '# Other soul\n');
writeFileSync(`${dir}/other/IDENTITY.md`, Buffer.from([0x23, 0xff, 0x0a]));
writeFileSync(`${dir}/other/AGENTS.md`, 'x'.repeat(16 * 1024 + 1));

const options = (argv: string[]) => parseCli(['deploy', '--config', 'i.yaml', ...argv]) as CliOptions;

describe('occ-ssh deploy --workspace / --workspace-file', () => {
  test('parse: a directory and repeated files, for deploy only', () => {
    const parsed = options(['--workspace', profile, '--workspace-file', 'a/SOUL.md', '--workspace-file', 'b/USER.md']);
    assert.equal(parsed.workspace, profile);
    assert.deepEqual(parsed.workspaceFiles, ['a/SOUL.md', 'b/USER.md']);
    assert.throws(() => parseCli(['status', '--config', 'i.yaml', '--workspace', profile]), UsageError);
    assert.equal(options([]).workspace, undefined);
  });

  test('reads the four documents a directory holds, and named files over them', () => {
    assert.deepEqual(workspaceFilesFrom(options(['--workspace', profile])), { 'SOUL.md': '# Soul\n', 'USER.md': '# User\n' });
    assert.deepEqual(workspaceFilesFrom(options(['--workspace-file', `${profile}/USER.md`])), { 'USER.md': '# User\n' });
    assert.equal(workspaceFilesFrom(options([])), undefined);
  });

  test('refuses a misnamed or doubled file, an empty directory, invalid UTF-8 and an oversized document, before any host', () => {
    assert.throws(() => workspaceFilesFrom(options(['--workspace-file', `${profile}/NOTES.md`])), /must be named AGENTS.md/);
    assert.throws(() => workspaceFilesFrom(options(['--workspace', profile, '--workspace-file', `${dir}/other/SOUL.md`])), /given twice/);
    assert.throws(() => workspaceFilesFrom(options(['--workspace', dir])), /holds none of/);
    for (const [name, reason] of [
      ['IDENTITY.md', /not valid UTF-8/],
      ['AGENTS.md', /exceeds 16384 bytes/],
    ] as const) {
      assert.throws(
        () => workspaceFilesFrom(options(['--workspace-file', `${dir}/other/${name}`])),
        (error: unknown) => error instanceof ComputeError && error.code === 'admission' && reason.test(error.message),
      );
    }
  });

  test("the setup is OCC's pending one, with an id fixed by the Agent and the documents", () => {
    const revision = revisionFor();
    const setupOf = (files: Record<string, string>) => workspaceContext(revision, files, undefined)?.workspaceSetup as Record<string, unknown>;
    const setup = setupOf({ 'SOUL.md': '# Soul\n' });
    assert.deepEqual({ ...setup, id: undefined }, { id: undefined, namespaceId: revision.namespaceId, agentId: revision.agentId, files: { 'SOUL.md': '# Soul\n' }, completed: false });
    assert.match(String(setup.id), /^cli-[0-9a-f]{32}$/);
    assert.equal(setupOf({ 'SOUL.md': '# Soul\n' }).id, setup.id);
    assert.notEqual(setupOf({ 'SOUL.md': '# Soul 2\n' }).id, setup.id);
    assert.equal(workspaceContext(revision, undefined, undefined), undefined, 'no documents and no completed setup: no workspace setup at all');
  });

  test('once the ledger records the setup complete, every later deploy sends it completed, without documents', () => {
    const revision = revisionFor();
    const first = workspaceContext(revision, { 'SOUL.md': '# Soul\n' }, undefined)?.workspaceSetup as { id: string };
    const later = { id: first.id, namespaceId: revision.namespaceId, agentId: revision.agentId, completed: true };
    assert.deepEqual(workspaceContext(revision, undefined, first.id)?.workspaceSetup, later);
    assert.deepEqual(workspaceContext(revision, { 'SOUL.md': '# Soul\n' }, first.id)?.workspaceSetup, later, 'the same documents again are not replayed');
    assert.throws(
      () => workspaceContext(revision, { 'SOUL.md': '# Edited soul\n' }, first.id),
      (error: unknown) => error instanceof UsageError && /completed its workspace setup/.test(error.message) && !error.message.includes('Edited soul'),
    );
  });
});

describe('the ledger records a completed workspace setup', () => {
  test('kept across later commits, and forgotten with the Agent', async () => {
    const ledger = new Ledger(`${dir}/ledger.json`);
    const revision = revisionFor();
    await ledger.compareAndSet(revision, null);
    await ledger.completeWorkspaceSetup(revision.namespaceId, revision.agentId, 'cli-setup-1');
    const next = { ...revision, id: `${revision.id}-next` };
    await ledger.compareAndSet(next, revision.id);
    assert.equal(ledger.entry(revision.namespaceId, revision.agentId)?.workspaceSetupId, 'cli-setup-1');
    await ledger.remove(revision.namespaceId, revision.agentId);
    assert.equal(ledger.entry(revision.namespaceId, revision.agentId), undefined);
  });
});
