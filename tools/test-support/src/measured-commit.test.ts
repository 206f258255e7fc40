import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { measuredCommit } from './measured-commit.js';

describe('measuredCommit', () => {
  it("names this checkout's HEAD as a full SHA", async () => {
    const commit = await measuredCommit();
    assert.ok(commit, 'the tests run from a git checkout');
    assert.match(commit.sha, /^[0-9a-f]{40}$/);
    assert.equal(typeof commit.dirty, 'boolean');
  });

  it('is undefined outside a git checkout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-ssh-nogit-'));
    try {
      assert.equal(await measuredCommit(dir), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
