// End to end with the real OpenClaw gateway from npm: cutover, state, managed password, retire, stop, redeploy, delete.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accountName, agentLayout } from '@occ-ssh/markers';
import { onDefaultImage } from '@occ-ssh/testhost';
import { agentBinding, revisionOf } from '../../test/hosts.js';
import { RealGatewayHost } from '../../test/real-gateway.js';

const ROOT = '/var/lib/openclaw-enterprise';

describe('the real OpenClaw gateway on a real host', () => {
  const binding = agentBinding('oc-real', 'stable');
  const gw = new RealGatewayHost('ocreal', binding);
  const layout = agentLayout(ROOT, '/etc/systemd/system', binding.namespace.id, binding.agent.id);
  const account = accountName('openclaw', binding.namespace.id, binding.agent.id);
  const rev1 = revisionOf(binding, 1);
  const rev2 = revisionOf(binding, 2, { logging: { consoleStyle: 'json' } });
  const agents = async () => (await gw.driver.inventory('stable')).namespaces.flatMap((ns) => ns.agents);
  const health = (port: number, password: string) =>
    gw.host.exec([gw.host.nodePath, gw.host.openclawPath, 'gateway', 'health', '--url', `ws://127.0.0.1:${port}`, '--password', password], { timeoutMs: 60_000 });

  test('revision 1 is prepared and activated; the gateway reaches /readyz', async () => {
    assert.equal((await gw.driver.prepareRevision(rev1)).ready, true);
    await gw.driver.activateRevision(rev1);
    const agent = await gw.agentOnceReady('stable', binding.agent.id);
    assert.equal(agent?.servedRevisionId, rev1.id);
    assert.equal(agent?.ready, true);
  });

  test('the managed password really guards the gateway', async () => {
    const password = (await gw.host.run(['cat', layout.passwordFile])).trim().replace(/^OPENCLAW_GATEWAY_PASSWORD=/, '');
    const good = await health(18800, password);
    assert.equal(good.code, 0, `health with the managed password: ${good.stderr.slice(-300)}`);
    const bad = await health(18800, 'not-the-password');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stdout + bad.stderr, /password mismatch|unauthorized/i);
  });

  test('cutover to revision 2 keeps state/ and the password', async () => {
    await gw.host.run(['runuser', '-u', account, '--', 'touch', `${layout.state}/persist-check`]);
    const before = await gw.host.run(['sha256sum', layout.passwordFile]);
    assert.equal((await gw.driver.prepareRevision(rev2)).ready, true);
    await gw.driver.activateRevision(rev2);
    const agent = await gw.agentOnceReady('stable', binding.agent.id);
    assert.equal(agent?.servedRevisionId, rev2.id);
    assert.equal(agent?.ready, true);
    assert.equal((await gw.host.exec(['test', '-e', `${layout.state}/persist-check`])).code, 0);
    assert.equal(await gw.host.run(['sha256sum', layout.passwordFile]), before);
  });

  // Each start of the real gateway costs about 20 CPU-seconds of CI's two cores. On the second image
  // (CI's Debian 13 subset) the first start, the password, a cutover and the deletion run again; the
  // redeploy after a stop and the trusted-proxy rendering are the driver's logic, which the default
  // image proves and the image does not change.
  if (onDefaultImage()) {
    test('retiring revision 1, stopping, and redeploying revision 2', async () => {
      await gw.driver.retireRevision(rev1);
      assert.deepEqual(
        (await agents())[0]?.revisions.map((r) => r.number),
        [2],
      );
      await gw.driver.stopRevision(rev2);
      assert.equal((await agents())[0]?.unitState, 'inactive');
      await gw.driver.activateRevision(rev2);
      const agent = await gw.agentOnceReady('stable', binding.agent.id);
      assert.equal(agent?.ready, true);
      assert.equal(agent?.servedRevisionId, rev2.id);
    });

    test('an explicit trusted-proxy configuration renders without the managed password and starts', async () => {
      const own = agentBinding('oc-proxy', 'stable');
      const proxied = { namespace: binding.namespace, agent: { ...own.agent, namespaceId: binding.namespace.id } };
      gw.driver.bindAgent(proxied);
      const revision = revisionOf(proxied, 1, {
        gateway: { mode: 'local', bind: 'loopback', trustedProxies: ['127.0.0.1'], auth: { mode: 'trusted-proxy', trustedProxy: { userHeader: 'x-forwarded-user', allowLoopback: true } } },
      });
      assert.equal((await gw.driver.prepareRevision(revision)).ready, true);
      await gw.driver.activateRevision(revision);
      const proxiedLayout = agentLayout(ROOT, '/etc/systemd/system', binding.namespace.id, proxied.agent.id);
      const unit = await gw.host.run(['cat', proxiedLayout.unitFile]);
      assert.doesNotMatch(unit, /gateway-password\.env/);
      assert.equal((await gw.host.exec(['test', '-e', proxiedLayout.passwordFile])).code, 1);
      const agent = await gw.agentOnceReady('stable', proxied.agent.id);
      assert.equal(agent?.ready, true);
      assert.equal(agent?.port, 18801);
    });
  }

  test('deleting the Namespace leaves no unit, account, marker or directory', async () => {
    const result = await gw.driver.deleteNamespace(binding.namespace);
    assert.equal(result.namespaceDeleted, true);
    assert.equal((await gw.host.run(['sh', '-c', 'ls /etc/systemd/system | grep -c openclaw-enterprise-gateway || true'])).trim(), '0');
    assert.equal((await gw.host.run(['sh', '-c', 'getent passwd | grep -c "^openclaw-" || true'])).trim(), '0');
    assert.equal((await gw.host.run(['sh', '-c', 'getent group | grep -c "^openclaw-" || true'])).trim(), '0');
    assert.equal((await gw.host.run(['ls', '-A', `${ROOT}/accounts`])).trim(), '');
    assert.equal((await gw.host.run(['ls', '-A', `${ROOT}/namespaces`])).trim(), '');
    assert.equal((await gw.host.run(['sh', '-c', 'ps -eo user:32,comm | grep -c "^openclaw-" || true'])).trim(), '0');
  });
});
