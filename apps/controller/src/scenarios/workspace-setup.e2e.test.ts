// Workspace setup end to end with the real OpenClaw gateway, on one Agent: OCC's four documents delivered
// through native setup, seen by the gateway's own agents.files.get; a retry changes nothing; a redeploy
// after completion leaves later edits alone; a tampered marker blocks activation. The cases that deploy
// other Agents of the Namespace (conflicts, planted links, none, the CLI) are in
// workspace-setup-siblings.e2e, so the second image runs this main path alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accountName, agentLayout, workspaceSetupMarkerPath } from '@occ-ssh/markers';
import { agentBinding, memoryLogger, revisionOf } from '../../test/hosts.js';
import { RealGatewayHost } from '../../test/real-gateway.js';
import { FILES, ROOT, SENTINEL, UNIT_DIR, contextWith, rejection } from '../../test/workspace-setup.js';

describe('workspace setup with the real OpenClaw gateway on a real host', () => {
  const log = memoryLogger();
  const binding = agentBinding('ws-real', 'stable');
  const gw = new RealGatewayHost('wsreal', binding, { logger: log.logger });
  const layout = agentLayout(ROOT, UNIT_DIR, binding.namespace.id, binding.agent.id);
  const account = accountName('openclaw', binding.namespace.id, binding.agent.id);
  const workspace = `${layout.state}/workspace`;
  const marker = workspaceSetupMarkerPath(layout.dir);
  const rev1 = revisionOf(binding, 1);
  const rev2 = revisionOf(binding, 2, { logging: { consoleStyle: 'json' } });
  const first = contextWith(binding, { files: FILES, completed: false });
  const completed = contextWith(binding, { completed: true });
  const asAgent = (argv: string[], input?: string) => gw.host.exec(['runuser', '-u', account, '--', ...argv], input === undefined ? {} : { input });
  const filesGet = async (name: string) => {
    const password = (await gw.host.run(['cat', layout.passwordFile])).trim().replace(/^OPENCLAW_GATEWAY_PASSWORD=/, '');
    const params = JSON.stringify({ agentId: 'main', name });
    const call = await gw.host.exec(
      [
        'env',
        'HOME=/tmp/occ-files-cli',
        gw.host.nodePath,
        gw.host.openclawPath,
        'gateway',
        'call',
        'agents.files.get',
        '--params',
        params,
        '--url',
        'ws://127.0.0.1:18800',
        '--password',
        password,
        '--json',
      ],
      {
        timeoutMs: 120_000,
      },
    );
    assert.equal(call.code, 0, `agents.files.get ${name}: ${call.stderr.slice(-300)}`);
    return call.stdout;
  };

  test('a first deployment with all four documents: delivered before the gateway starts, then what the gateway serves', async () => {
    assert.equal((await gw.driver.prepareRevision(rev1, first)).ready, true);
    // Native setup ran, the gateway did not: the unit is not even enabled yet.
    assert.notEqual((await gw.host.exec(['systemctl', 'is-active', '--quiet', layout.unitName])).code, 0);
    for (const [name, content] of Object.entries(FILES)) assert.equal(await gw.host.run(['cat', `${workspace}/${name}`]), content, name);
    assert.equal((await gw.host.run(['stat', '-c', '%U %a', `${workspace}/SOUL.md`])).trim(), `${account} 600`);
    assert.equal((await gw.host.run(['stat', '-c', '%U:%G %a', marker])).trim(), 'root:root 600');
    const recorded = JSON.parse(await gw.host.run(['cat', marker])) as { setupId: string; documents: Record<string, string>; openclawVersion: string };
    assert.equal(recorded.setupId, `setup-${binding.agent.id}`);
    assert.deepEqual(Object.keys(recorded.documents).sort(), Object.keys(FILES).sort());
    assert.match(recorded.openclawVersion, /^\d{4}\.\d+\.\d+/);
    // Native setup made the rest of its baseline as the Agent, beside the profile.
    assert.equal((await gw.host.run(['stat', '-c', '%U', `${layout.state}/agents/main/sessions`])).trim(), account);
    assert.notEqual((await gw.host.exec(['test', '-e', `${layout.state}/.occ-workspace-setup`])).code, 0, 'the scratch configuration is gone');
    await gw.driver.activateRevision(rev1, first);
    for (const [name, content] of Object.entries(FILES)) assert.ok((await filesGet(name)).includes(JSON.stringify(content).slice(1, -1)), `agents.files.get ${name} returns the submitted text`);
  });

  test('a retry after a lost acknowledgement changes nothing', async () => {
    const before = await gw.host.run(['stat', '-c', '%i %Y', `${workspace}/SOUL.md`, marker]);
    assert.equal((await gw.driver.prepareRevision(rev1, first)).ready, true);
    assert.equal(await gw.host.run(['stat', '-c', '%i %Y', `${workspace}/SOUL.md`, marker]), before);
  });

  test('after completion, a redeploy leaves a later edit exactly as the user left it', async () => {
    const edited = '# SOUL.md\n\nEdited live by the user.\n';
    assert.equal((await asAgent(['tee', `${workspace}/SOUL.md`], edited)).code, 0);
    assert.equal((await gw.driver.prepareRevision(rev2, completed)).ready, true);
    await gw.driver.activateRevision(rev2, completed);
    assert.equal(await gw.host.run(['cat', `${workspace}/SOUL.md`]), edited);
    assert.equal(await gw.host.run(['cat', `${workspace}/USER.md`]), FILES['USER.md']);
  });

  test('a tampered marker blocks preparation and activation with a permanent, document-free error', async () => {
    const original = await gw.host.run(['cat', marker]);
    await gw.host.run(['sed', '-i', 's/"setupId":"setup-/"setupId":"other-/', marker]);
    try {
      for (const call of [() => gw.driver.prepareRevision(rev2, completed), () => gw.driver.activateRevision(rev2, completed)]) {
        const error = await rejection(call());
        assert.equal(error.code, 'ownership');
        assert.equal(error.failure, 'permanent');
        assert.equal(error.details.path, marker);
        assert.doesNotMatch(error.message, new RegExp(SENTINEL));
      }
      await gw.host.run(['rm', marker]);
      const missing = await rejection(gw.driver.activateRevision(rev2, completed));
      assert.equal(missing.code, 'ownership');
      assert.match(missing.message, /not complete/);
    } finally {
      await gw.host.run(['tee', marker], { input: original });
      await gw.host.run(['chmod', '600', marker]);
    }
    assert.equal((await gw.driver.prepareRevision(rev2, completed)).ready, true);
  });

  test('no document text reached a log line', () => {
    assert.doesNotMatch(log.text(), new RegExp(SENTINEL));
  });
});
