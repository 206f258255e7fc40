// Native setup runs without the host lock, on a real host: a sibling's operation completes while one
// Agent's setup is still running, and a deletion of the Agent meanwhile stops its setup and wins.
// The compromised `openclaw setup` blocks until the test releases it, so no assertion depends on timing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { workspaceSetupMarkerPath } from '@occ-ssh/markers';
import type { OperationArgs } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { HelperCallError, exists, installTenantGateway, layoutOf, ok, owner, prepareArgs } from '@occ-ssh/test-support';
import type { AgentOwner } from '@occ-ssh/protocol';

/** As `setup`: say it started, then wait until the test creates `setup-release` in state/. */
const BLOCKING_SETUP = `
if (process.argv[2] === 'setup') {
  const fs = require('node:fs');
  const dir = process.env.OPENCLAW_STATE_DIR;
  fs.writeFileSync(dir + '/setup-started', '');
  const poll = () => (fs.existsSync(dir + '/setup-release') ? process.exit(0) : setTimeout(poll, 100));
  poll();
  return;
}
`;

describe('native setup without the host lock on a real host', { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  let openclawPath: string;

  before(async () => {
    host = await startTestHost({ name: 'hwsunl' });
    openclawPath = await installTenantGateway(host, 'setup-block', BLOCKING_SETUP);
  });
  after(() => host?.down());

  /** Starts setup-workspace of a prepared Agent; resolves once its native setup is running. */
  async function startBlockedSetup(who: AgentOwner) {
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const prepared = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', prepared);
    const args: OperationArgs<'setup-workspace'> = { owner: who, revision: prepared.revision, setup: { id: `setup-${who.agent.id}`, completed: false, documents: [] } };
    const outcome = { settled: false };
    const call = ok(host, 'setup-workspace', args, { runtime: { openclawPath } }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    void call.then(() => (outcome.settled = true));
    const started = `${layoutOf(who).state}/setup-started`;
    while (!(await exists(host, started))) {
      if (outcome.settled) assert.fail(`setup-workspace ended before its native setup started: ${String(Object.values(await call)[0])}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    return { call, outcome };
  }

  test("a sibling's preparation completes while native setup is still running", async () => {
    const blocked = owner('unl-blocked', 'unl-a');
    const sibling = owner('unl-sibling', 'unl-b');
    const { call, outcome } = await startBlockedSetup(blocked);
    await ok(host, 'ensure-namespace', { namespace: sibling.namespace });
    await ok(host, 'prepare-revision', prepareArgs(sibling, 1));
    assert.equal(outcome.settled, false, "the sibling's operations waited for native setup");
    await host.run(['touch', `${layoutOf(blocked).state}/setup-release`]);
    const ended = await call;
    assert.ok('result' in ended, `setup-workspace failed: ${String('error' in ended ? ended.error : '')}`);
    assert.equal(ended.result.workspace, 'applied');
    assert.equal(await exists(host, workspaceSetupMarkerPath(layoutOf(blocked).dir)), true);
  });

  test('deleting the Agent during its native setup stops the setup unit, and the setup fails as a conflict without its marker', async () => {
    const doomed = owner('unl-doomed', 'unl-c');
    const layout = layoutOf(doomed);
    const { call, outcome } = await startBlockedSetup(doomed);
    const deleted = await ok(host, 'delete-agent', { owner: doomed });
    assert.equal(deleted.agentExisted, true);
    assert.equal(deleted.accountRemoved, true);
    const ended = await call;
    assert.ok(outcome.settled);
    assert.ok('error' in ended && ended.error instanceof HelperCallError, 'setup-workspace failed');
    assert.equal(ended.error.code, 'conflict', ended.error.message);
    assert.notEqual((await host.exec(['systemctl', 'is-active', '--quiet', layout.setupUnitName])).code, 0, 'the setup unit is stopped');
    assert.equal((await host.exec(['pgrep', '-f', `${openclawPath} setup`])).stdout.trim(), '', 'no native setup process is left');
    assert.equal(await exists(host, layout.dir), false);
    assert.equal(await exists(host, workspaceSetupMarkerPath(layout.dir)), false);
  });
});
