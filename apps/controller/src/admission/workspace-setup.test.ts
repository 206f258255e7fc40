// Workspace setup admission: OCC's WorkspaceSetup shape, its Agent, and its documents as OCC normalizes them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError, MAX_WORKSPACE_FILE_BYTES } from '@occ-ssh/protocol';
import { revisionFor } from '../../test/fakes.js';
import { admitWorkspaceSetup } from './workspace-setup.js';

const revision = revisionFor();
const SECRET_TEXT = 'workspace-canary-91c2';
const setup = (overrides: Record<string, unknown> = {}) => ({ id: 'setup-1', namespaceId: revision.namespaceId, agentId: revision.agentId, completed: false, ...overrides });

function refused(value: unknown, target = revision): ComputeError {
  try {
    admitWorkspaceSetup(value, target);
  } catch (error) {
    assert.ok(error instanceof ComputeError);
    assert.equal(error.code, 'admission');
    assert.equal(error.failure, 'permanent');
    assert.doesNotMatch(error.message, new RegExp(SECRET_TEXT));
    return error;
  }
  assert.fail('expected a refusal');
}

describe('admitWorkspaceSetup', () => {
  it('admits the four documents in OCC order, and none', () => {
    const files = { 'USER.md': 'u', 'AGENTS.md': 'a', 'IDENTITY.md': '', 'SOUL.md': `# Soul ${SECRET_TEXT}\n` };
    const defaultsId = 'a'.repeat(64);
    assert.deepEqual(admitWorkspaceSetup(setup({ files, defaultsId }), revision), {
      id: 'setup-1',
      defaultsId,
      completed: false,
      documents: [
        { name: 'AGENTS.md', content: 'a' },
        { name: 'SOUL.md', content: `# Soul ${SECRET_TEXT}\n` },
        { name: 'IDENTITY.md', content: '' },
        { name: 'USER.md', content: 'u' },
      ],
    });
    assert.deepEqual(admitWorkspaceSetup(setup({ completed: true }), revision), { id: 'setup-1', completed: true, documents: [] });
    assert.equal(admitWorkspaceSetup(undefined, revision), undefined);
    assert.equal(admitWorkspaceSetup(null, revision), undefined);
  });

  it('admits a document of exactly 16 KiB of UTF-8, multi-byte characters counted as bytes', () => {
    const exact = 'é'.repeat(MAX_WORKSPACE_FILE_BYTES / 2);
    assert.equal(admitWorkspaceSetup(setup({ files: { 'SOUL.md': exact } }), revision)?.documents[0]?.content, exact);
    assert.equal(refused(setup({ files: { 'SOUL.md': `${exact}x` } })).details.key, 'context.workspaceSetup.files.SOUL.md');
  });

  it('refuses a setup for another Namespace or another Agent than the revision', () => {
    assert.equal(refused(setup({ namespaceId: 'ns-other' })).details.key, 'context.workspaceSetup.namespaceId');
    assert.equal(refused(setup({ agentId: 'agent-other' })).details.key, 'context.workspaceSetup.agentId');
    assert.equal(refused(setup({ agentId: undefined })).details.key, 'context.workspaceSetup.agentId');
  });

  it('refuses a file outside the four names, invalid Unicode, NUL and a non-string, naming the rule and never the text', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ 'BOOTSTRAP.md': SECRET_TEXT }, 'context.workspaceSetup.files', /not a workspace document/],
      [{ '../AGENTS.md': SECRET_TEXT }, 'context.workspaceSetup.files', /not a workspace document/],
      [{ 'SOUL.md': `${SECRET_TEXT}\uD800` }, 'context.workspaceSetup.files.SOUL.md', /Unicode/],
      [{ 'USER.md': `\uDC00${SECRET_TEXT}` }, 'context.workspaceSetup.files.USER.md', /Unicode/],
      [{ 'AGENTS.md': `${SECRET_TEXT}\0` }, 'context.workspaceSetup.files.AGENTS.md', /NUL/],
      [{ 'IDENTITY.md': 42 }, 'context.workspaceSetup.files.IDENTITY.md', /string/],
    ];
    for (const [files, key, reason] of cases) {
      const error = refused(setup({ files }));
      assert.equal(error.details.key, key, JSON.stringify(Object.keys(files)));
      assert.match(error.message, reason);
    }
    assert.equal(refused(setup({ files: ['AGENTS.md'] })).details.key, 'context.workspaceSetup.files');
  });

  it('admits a valid surrogate pair (an emoji) and refuses the malformed shape, id and defaults', () => {
    assert.equal(admitWorkspaceSetup(setup({ files: { 'SOUL.md': '🦞' } }), revision)?.documents.length, 1);
    assert.equal(refused('setup-1').details.key, 'context.workspaceSetup');
    assert.equal(refused(setup({ id: 'a b' })).details.key, 'context.workspaceSetup.id');
    assert.equal(refused(setup({ defaultsId: 'ABC' })).details.key, 'context.workspaceSetup.defaultsId');
    assert.equal(refused(setup({ completed: 'yes' })).details.key, 'context.workspaceSetup.completed');
    assert.equal(refused(setup({ bytes: 1 })).details.key, 'context.workspaceSetup.bytes');
  });

  it('refuses a configuration that places the workspace outside the one SSH Compute manages', () => {
    const elsewhere = revisionFor({ configuration: { agents: { defaults: { workspace: '/etc' } } } });
    assert.equal(refused(setup({ completed: true }), elsewhere).details.key, 'configuration.agents.defaults.workspace');
    const listed = revisionFor({ configuration: { agents: { list: [{ id: 'main' }, { id: 'b', workspace: '/srv/w' }] } } });
    assert.equal(refused(setup(), listed).details.key, 'configuration.agents.list[1].workspace');
  });
});
