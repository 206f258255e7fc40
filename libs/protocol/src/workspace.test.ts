// The workspace documents on the wire: OCC's four names, its content rules, each name once; and
// activation's setup id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exampleArgs, OPERATIONS } from './operations/index.js';
import { MAX_WORKSPACE_FILE_BYTES, workspaceContentProblem } from './workspace.js';

const args = OPERATIONS['setup-workspace'].args;
const withDocuments = (documents: unknown) => ({ ...exampleArgs('setup-workspace'), setup: { ...exampleArgs('setup-workspace').setup, documents } });

describe('workspace documents', () => {
  it("judges content as OCC's normalization does: valid Unicode, no NUL, at most 16 KiB of UTF-8", () => {
    assert.equal(workspaceContentProblem(''), undefined);
    assert.equal(workspaceContentProblem('🦞'.repeat(MAX_WORKSPACE_FILE_BYTES / 4)), undefined);
    assert.match(workspaceContentProblem('🦞'.repeat(MAX_WORKSPACE_FILE_BYTES / 4) + 'x') ?? '', /16384 bytes/);
    assert.match(workspaceContentProblem('a\uD83Eb') ?? '', /Unicode/);
    assert.match(workspaceContentProblem('\uDE9E') ?? '', /Unicode/);
    assert.match(workspaceContentProblem('a\0') ?? '', /NUL/);
    assert.match(workspaceContentProblem(7) ?? '', /string/);
  });

  it('setup-workspace takes the four names once each, and refuses any other name, a repeat or bad content without quoting it', () => {
    const four = ['AGENTS.md', 'SOUL.md', 'IDENTITY.md', 'USER.md'].map((name) => ({ name, content: name }));
    assert.equal(args.safeParse(withDocuments(four)).success, true);
    assert.equal(args.safeParse(withDocuments([])).success, true);
    for (const documents of [[{ name: 'TOOLS.md', content: '' }], [four[0], four[0]], [{ name: 'SOUL.md', content: 'canary-3e\0' }], [...four, four[1]]]) {
      const parsed = args.safeParse(withDocuments(documents));
      assert.equal(parsed.success, false, JSON.stringify(documents).slice(0, 80));
      assert.doesNotMatch(JSON.stringify(parsed.error?.issues.map((issue) => issue.message)), /canary-3e/);
    }
  });

  it("activate-revision's workspaceSetupId is optional and an ID", () => {
    const activate = OPERATIONS['activate-revision'].args;
    assert.equal(activate.safeParse(exampleArgs('activate-revision')).success, true);
    assert.equal(activate.safeParse({ ...exampleArgs('activate-revision'), workspaceSetupId: 'setup-1' }).success, true);
    assert.equal(activate.safeParse({ ...exampleArgs('activate-revision'), workspaceSetupId: 'a b' }).success, false);
  });
});
