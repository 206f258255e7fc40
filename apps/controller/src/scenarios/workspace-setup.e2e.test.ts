// Workspace setup end to end with the real OpenClaw gateway: OCC's four documents delivered through native
// setup, seen by the gateway's own agents.files.get; a redeploy after completion leaves later edits alone;
// a tampered marker blocks activation; conflicts and planted links are refused and never written through.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accountName, agentLayout, workspaceSetupMarkerPath } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { EXIT, runCli } from '../cli/main.js';
import type { ComputeAgentBinding, ComputeRevisionContext } from '../types.js';
import { agentBinding, hostInfo, installationYaml, memoryLogger, revisionOf } from '../../test/hosts.js';
import { RealGatewayHost } from '../../test/real-gateway.js';

const ROOT = '/var/lib/openclaw-enterprise';
const SENTINEL = 'occ-document-sentinel-7f3a';
const FILES = {
  'AGENTS.md': `# AGENTS.md\n\nWork in small steps. ${SENTINEL}-agents\n`,
  'SOUL.md': `# SOUL.md\n\nCalm, exact, kind. ${SENTINEL}-soul\n`,
  'IDENTITY.md': `# IDENTITY.md\n\n- Name: Quill ${SENTINEL}-identity\n`,
  'USER.md': `# USER.md\n\n- Prefers short answers. ${SENTINEL}-user\n`,
};

function contextWith(binding: ComputeAgentBinding, setup: Record<string, unknown>): ComputeRevisionContext {
  return { harnessAuth: { method: 'runtime' }, secretEnvironment: [], workspaceSetup: { id: `setup-${binding.agent.id}`, namespaceId: binding.namespace.id, agentId: binding.agent.id, ...setup } };
}

async function rejection(promise: Promise<unknown>): Promise<ComputeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ComputeError, String(error));
    return error;
  }
  assert.fail('expected a rejection');
}

describe('workspace setup with the real OpenClaw gateway on a real host', () => {
  const log = memoryLogger();
  const binding = agentBinding('ws-real', 'stable');
  const gw = new RealGatewayHost('wsreal', binding, { logger: log.logger });
  const layout = agentLayout(ROOT, '/etc/systemd/system', binding.namespace.id, binding.agent.id);
  const account = accountName('openclaw', binding.namespace.id, binding.agent.id);
  const workspace = `${layout.state}/workspace`;
  const marker = workspaceSetupMarkerPath(layout.dir);
  const rev1 = revisionOf(binding, 1);
  const rev2 = revisionOf(binding, 2, { logging: { consoleStyle: 'json' } });
  /** Another Agent of the Namespace, bound: its binding, layout, account and first revision. */
  const sibling = (tag: string) => {
    const agent = { namespace: binding.namespace, agent: { ...agentBinding(tag, 'stable').agent, namespaceId: binding.namespace.id } };
    gw.driver.bindAgent(agent);
    return { agent, where: agentLayout(ROOT, '/etc/systemd/system', agent.namespace.id, agent.agent.id), user: accountName('openclaw', agent.namespace.id, agent.agent.id), rev: revisionOf(agent, 1) };
  };
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

  test('a deployment without workspaceSetup behaves as before: no marker, no native setup', async () => {
    const { where: plainLayout, rev } = sibling('ws-none');
    assert.equal((await gw.driver.prepareRevision(rev)).ready, true);
    assert.notEqual((await gw.host.exec(['test', '-e', workspaceSetupMarkerPath(plainLayout.dir)])).code, 0);
    assert.notEqual((await gw.host.exec(['test', '-e', `${plainLayout.state}/workspace`])).code, 0);
  });

  test('before completion, a document the Agent wrote is a conflict: refused, never overwritten', async () => {
    const { agent: conflicted, where, user, rev } = sibling('ws-conflict');
    assert.equal((await gw.driver.prepareRevision(rev)).ready, true);
    const mine = '# SOUL.md\n\nWritten before the setup.\n';
    await gw.host.run(['runuser', '-u', user, '--', 'mkdir', `${where.state}/workspace`]);
    await gw.host.run(['runuser', '-u', user, '--', 'tee', `${where.state}/workspace/SOUL.md`], { input: mine });
    const error = await rejection(gw.driver.prepareRevision(rev, contextWith(conflicted, { files: FILES, completed: false })));
    assert.equal(error.code, 'ownership');
    assert.equal(error.details.path, `${where.state}/workspace/SOUL.md`);
    assert.doesNotMatch(error.message, new RegExp(SENTINEL));
    assert.equal(await gw.host.run(['cat', `${where.state}/workspace/SOUL.md`]), mine);
    assert.notEqual((await gw.host.exec(['test', '-e', workspaceSetupMarkerPath(where.dir)])).code, 0);
  });

  test('planted links at a document, at the workspace and at the marker never redirect a write', async () => {
    const { agent: hostile, where, user, rev } = sibling('ws-links');
    const context = contextWith(hostile, { files: FILES, completed: false });
    const as = (argv: string[]) => gw.host.run(['runuser', '-u', user, '--', ...argv]);
    assert.equal((await gw.driver.prepareRevision(rev)).ready, true);
    await gw.host.run(['sh', '-c', 'mkdir -p /srv/victim && echo root-owned > /srv/victim/SOUL.md && chmod 644 /srv/victim/SOUL.md']);
    const victim = async () => gw.host.run(['sha256sum', '/srv/victim/SOUL.md']);
    const untouched = await victim();
    // A link at a document name.
    await as(['mkdir', `${where.state}/workspace`]);
    await as(['ln', '-s', '/srv/victim/SOUL.md', `${where.state}/workspace/SOUL.md`]);
    let error = await rejection(gw.driver.prepareRevision(rev, context));
    assert.equal(error.code, 'ownership');
    assert.equal(error.details.path, `${where.state}/workspace/SOUL.md`);
    assert.equal(await victim(), untouched);
    // A link at the workspace directory itself.
    await as(['rm', '-r', `${where.state}/workspace`]);
    await as(['ln', '-s', '/srv/victim', `${where.state}/workspace`]);
    error = await rejection(gw.driver.prepareRevision(rev, context));
    assert.equal(error.code, 'ownership');
    assert.equal(error.details.path, `${where.state}/workspace`);
    assert.equal(await victim(), untouched);
    assert.equal((await gw.host.run(['ls', '/srv/victim'])).trim(), 'SOUL.md');
    // The marker lives in root's Agent directory: the Agent cannot plant anything there.
    const plant = await gw.host.exec(['runuser', '-u', user, '--', 'ln', '-s', '/srv/victim/SOUL.md', workspaceSetupMarkerPath(where.dir)]);
    assert.notEqual(plant.code, 0);
    assert.match(plant.stderr, /Permission denied/);
    // With the links gone, the same setup is delivered.
    await as(['rm', `${where.state}/workspace`]);
    assert.equal((await gw.driver.prepareRevision(rev, context)).ready, true);
    assert.equal(await gw.host.run(['cat', `${where.state}/workspace/SOUL.md`]), FILES['SOUL.md']);
    assert.equal(await victim(), untouched);
  });

  test('occ-ssh deploy --workspace delivers the documents, and status shows the setup', async () => {
    const dir = mkdtempSync(`${tmpdir()}/occ-ws-cli-`);
    mkdirSync(`${dir}/profile`);
    for (const [name, content] of Object.entries(FILES)) writeFileSync(`${dir}/profile/${name}`, content);
    writeFileSync(`${dir}/installation.yaml`, installationYaml({ stable: hostInfo(gw.host) }, { realOpenClaw: true }));
    const revision = {
      namespace: binding.namespace,
      agent: { id: 'agent-ws-cli', servicePrincipal: { id: 'sp-ws-cli' } },
      revision: { id: 'rev-ws-cli-1', number: 1, configuration: { gateway: { mode: 'local' } } },
    };
    writeFileSync(`${dir}/rev-1.json`, JSON.stringify(revision));
    const cli = async (...argv: string[]) => {
      let out = '';
      const stream = new Writable({ write: (chunk: Buffer, _e, done) => ((out += chunk.toString()), done()) });
      const code = await runCli([...argv, '--config', `${dir}/installation.yaml`, '--ledger', `${dir}/ledger.json`], stream, stream);
      return { code, out };
    };
    const deployed = await cli('deploy', '--revision', `${dir}/rev-1.json`, '--workspace', `${dir}/profile`);
    assert.equal(deployed.code, EXIT.ok, deployed.out);
    assert.match(deployed.out, /prepare revision and workspace \(AGENTS\.md, SOUL\.md, IDENTITY\.md, USER\.md\) \.\.\. ok/);
    assert.doesNotMatch(deployed.out, new RegExp(SENTINEL));
    const where = agentLayout(ROOT, '/etc/systemd/system', binding.namespace.id, 'agent-ws-cli');
    assert.equal(await gw.host.run(['cat', `${where.state}/workspace/IDENTITY.md`]), FILES['IDENTITY.md']);
    const shown = await cli('status', '--namespace', 'stable');
    assert.equal(shown.code, EXIT.ok, shown.out);
    assert.match(shown.out, /Agent agent-ws-cli .* workspace setup cli-[0-9a-f]{32}/);
    assert.match(shown.out, /Agent agent-ws-none .* workspace setup -/);
  });

  test('no document text reached a log line', () => {
    assert.doesNotMatch(log.text(), new RegExp(SENTINEL));
  });
});
