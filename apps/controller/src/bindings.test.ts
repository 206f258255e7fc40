// bindAgent keeps its own copy of OCC's objects: checked through the envelope the driver builds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadInstallationConfiguration } from './config/index.js';
import { SshComputeDriver } from './driver.js';
import { FakeExecutor, NAMESPACE, agentFor, revisionFor } from '../test/fakes.js';
import { installationYaml, memoryLogger } from '../test/hosts.js';

describe('bindAgent keeps its own copy (no host: what is checked is the envelope the driver builds)', () => {
  test("changing the caller's Namespace, Agent or ServicePrincipal objects after bindAgent moves no ownership", async () => {
    const executor = new FakeExecutor();
    const driver = new SshComputeDriver({
      configuration: loadInstallationConfiguration({
        text: installationYaml({
          stable: {
            address: '203.0.113.10',
            port: 22,
            identityFile: '/etc/openclaw/ssh/id_ed25519',
            knownHostsFile: '/etc/openclaw/ssh/known_hosts',
            nodePath: '/usr/bin/node',
            openclawPath: '/opt/openclaw/x.js',
            fixtureGatewayPath: '/opt/openclaw/x.js',
          },
        }),
      }),
      executor,
      logger: memoryLogger().logger,
    });
    const namespace = { ...NAMESPACE };
    const agent = { ...agentFor() };
    driver.bindAgent({ namespace, agent });
    (namespace as { name: string }).name = 'elsewhere';
    (agent as { servicePrincipalId: string }).servicePrincipalId = 'sp-hijacked';
    await driver.prepareRevision(revisionFor());
    assert.deepEqual((executor.calls[0]!.envelope.args as { owner: unknown }).owner, { namespace: { id: 'ns-1', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } });
  });
});
