// setup-workspace cut off on a real host, with the real OpenClaw's native setup: the ssh client is killed
// after a spread of the helper's own progress lines (one a second, one per change begun), so cuts land in
// each step; no native setup outlives the cut, and every retry converges on the documents and the marker.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentLayout, workspaceSetupMarkerPath } from '@occ-ssh/markers';
import type { OperationArgs } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, call, exists, helperRunning, ok, owner, prepareArgs, tempFiles } from '@occ-ssh/test-support';

const DOCUMENTS = [
  { name: 'SOUL.md', content: '# SOUL.md\n\nSteady.\n' },
  { name: 'USER.md', content: '# USER.md\n\n- Likes lists.\n' },
] as const;

/**
 * After how many progress lines each cut comes: before native setup begins, then spread through the
 * operation's run (about 30 lines on a loaded test host) to near its end. Each cut costs two runs of
 * the real OpenClaw's setup, the cut one and the retry's.
 */
const CUT_AFTER_LINES = [2, 7, 14, 25];

describe('setup-workspace cut off on a real host', () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hwskill' });
  });
  after(() => host?.down());

  test('a kill after any progress line leaves no native setup running and no temp, and the retry converges', async () => {
    const runtime = { openclawPath: host.openclawPath };
    let cutMidway = 0;
    for (const [index, lines] of CUT_AFTER_LINES.entries()) {
      const who = owner(`wsk${index}`);
      await ok(host, 'ensure-namespace', { namespace: who.namespace });
      const prepared = prepareArgs(who, 1);
      await ok(host, 'prepare-revision', prepared);
      const args: OperationArgs<'setup-workspace'> = { owner: who, revision: prepared.revision, setup: { id: `setup-${index}`, completed: false, documents: [...DOCUMENTS] } };
      const outcome = await call(host, 'setup-workspace', args, { killAfterLines: lines, runtime });
      if (outcome.killed && !outcome.line) cutMidway += 1;
      // The helper sees the closed session at its next change or heartbeat, and kills native setup's group.
      let running = '';
      for (let i = 0; i < 50; i += 1) {
        running = (await host.exec(['pgrep', '-f', `${host.openclawPath} setup`])).stdout.trim();
        if (!running && !(await helperRunning(host))) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(running, '', `native setup outlived the cut after ${lines} lines`);
      assert.deepEqual(await tempFiles(host), []);
      const retry = await ok(host, 'setup-workspace', args, { runtime });
      assert.ok(retry.workspace === 'applied' || retry.workspace === 'verified');
      const layout = agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
      for (const { name, content } of DOCUMENTS) assert.equal(await host.run(['cat', `${layout.state}/workspace/${name}`]), content, `${name} after ${lines} lines`);
      assert.match(await host.run(['cat', workspaceSetupMarkerPath(layout.dir)]), new RegExp(`"setupId":"setup-${index}"`));
      assert.equal(await exists(host, `${layout.state}/.occ-workspace-setup`), false, 'the scratch configuration is gone');
      // Once recorded, the same call changes nothing.
      assert.equal((await ok(host, 'setup-workspace', args, { runtime })).workspace, 'verified');
    }
    assert.ok(cutMidway > 0, 'at least one cut landed before the result');
  });
});
