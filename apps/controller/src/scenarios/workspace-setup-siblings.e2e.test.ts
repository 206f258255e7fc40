// Workspace setup with the real OpenClaw gateway, for other Agents of the Namespace than
// workspace-setup.e2e's: a deployment without workspaceSetup; a document the Agent wrote before
// completion is a conflict; planted links never redirect a write; `occ-ssh deploy --workspace`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accountName, agentLayout, workspaceSetupMarkerPath } from '@occ-ssh/markers';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { EXIT, runCli } from '../cli/main.js';
import { agentBinding, hostInfo, installationYaml, memoryLogger, revisionOf } from '../../test/hosts.js';
import { RealGatewayHost } from '../../test/real-gateway.js';
import { FILES, ROOT, SENTINEL, UNIT_DIR, contextWith, rejection } from '../../test/workspace-setup.js';

describe('workspace setup with the real OpenClaw gateway on a real host: other Agents of the Namespace', () => {
  const log = memoryLogger();
  const binding = agentBinding('ws-sib', 'stable');
  const gw = new RealGatewayHost('wssib', binding, { logger: log.logger });
  /** Another Agent of the Namespace, bound: its binding, layout, account and first revision. */
  const sibling = (tag: string) => {
    const agent = { namespace: binding.namespace, agent: { ...agentBinding(tag, 'stable').agent, namespaceId: binding.namespace.id } };
    gw.driver.bindAgent(agent);
    return { agent, where: agentLayout(ROOT, UNIT_DIR, agent.namespace.id, agent.agent.id), user: accountName('openclaw', agent.namespace.id, agent.agent.id), rev: revisionOf(agent, 1) };
  };

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
    const where = agentLayout(ROOT, UNIT_DIR, binding.namespace.id, 'agent-ws-cli');
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
