// Real-host proof of the link-local rule: the test host serves a stand-in for the cloud metadata
// service on its own 169.254.169.254 (added to its loopback, so nothing leaves the host), a root
// process outside any unit reaches it, and a compromised gateway, as the Agent's account inside its
// unit, tries. Where the host can enforce IPAddressDeny= the gateway is refused; where it cannot (the
// nspawn test hosts run hybrid cgroups), probe says why, which preflight turns into a warning.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { hostObjects, startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, installTenantGateway, layoutOf, ok, owner, prepareArgs } from '@occ-ssh/test-support';

const METADATA = '169.254.169.254';
const CREDENTIALS = 'instance-role-credentials-5b2e';

/** A fetch of the metadata service as a gateway would make it: what it got, or the error. */
const FETCH = `
const fetchMetadata = (done) => {
  const socket = require('node:net').connect({ host: '${METADATA}', port: 80, timeout: 5000 });
  let data = '';
  socket.on('data', (chunk) => (data += chunk));
  socket.on('end', () => done({ data }));
  socket.on('timeout', () => { socket.destroy(); done({ error: 'timeout' }); });
  socket.on('error', (error) => done({ error: error.code }));
};
`;

const ATTACK = `${FETCH}
const fs = require('node:fs');
const report = process.env.OPENCLAW_STATE_DIR + '/metadata.json';
if (!fs.existsSync(report)) fetchMetadata((result) => fs.writeFileSync(report, JSON.stringify(result)));
`;

describe('a compromised gateway cannot reach link-local addresses', () => {
  let host: TestHost;

  before(async () => {
    host = await startTestHost({ name: 'hlink' });
    // The host has no CAP_NET_ADMIN in its own namespace; the machine adds the address to the host's loopback for it.
    execFileSync('ip', ['-n', hostObjects(host.name).netns, 'addr', 'add', `${METADATA}/32`, 'dev', 'lo']);
    const server = `require('node:net').createServer((socket) => socket.on('error', () => {}).end('${CREDENTIALS}\\n')).listen(80, '${METADATA}')`;
    await host.run(['systemd-run', '--unit=occ-metadata', '--service-type=exec', '--', host.nodePath, '-e', server]);
    const listening = `require('node:net').connect(80, '${METADATA}').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`;
    for (let tries = 0; ; tries++) {
      const up = await host.run(['sh', '-c', `${host.nodePath} -e "$1" && echo up || echo down`, 'sh', listening]);
      if (up.trim() === 'up') break;
      if (tries > 50) assert.fail('the metadata stand-in never listened');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  after(() => host?.down());

  const attempt = async (who: ReturnType<typeof owner>, tenant: string, runtime: { allowLinkLocal?: true }) => {
    const openclawPath = await installTenantGateway(host, tenant, ATTACK);
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const prepared = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', prepared, { runtime: { openclawPath, ...runtime } });
    await ok(host, 'activate-revision', activateArgs(prepared), { runtime: { openclawPath, ...runtime } });
    const layout = layoutOf(who);
    let text = '';
    for (let tries = 0; text === '' && tries < 60; tries++) {
      text = await host.run(['sh', '-c', 'cat "$1" 2>/dev/null || true', 'sh', `${layout.state}/metadata.json`]);
      if (text === '') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const deny = (await host.run(['systemctl', 'show', '-p', 'IPAddressDeny', '--value', layout.unitName])).trim();
    return { result: JSON.parse(text) as { data?: string; error?: string }, deny };
  };

  test('root outside a unit reaches the stand-in; the gateway unit denies 169.254.0.0/16 and fe80::/10, and is refused where the host enforces it', async () => {
    const root = await host.run([host.nodePath, '-e', `${FETCH}fetchMetadata((result) => console.log(JSON.stringify(result)))`]);
    assert.deepEqual(JSON.parse(root), { data: `${CREDENTIALS}\n` }, 'root on the host reaches the stand-in');

    const { result, deny } = await attempt(owner('metadata'), 'metadata', {});
    assert.deepEqual(deny.split(' ').sort(), ['169.254.0.0/16', 'fe80::/10']);
    const { ipAddressDenyMissing } = await ok(host, 'probe', {});
    process.stderr.write(`# gateway fetching ${METADATA}: ${JSON.stringify(result)}; the host cannot enforce IPAddressDeny= because: ${JSON.stringify(ipAddressDenyMissing)}\n`);
    if (ipAddressDenyMissing.length === 0) {
      // systemd's cgroup firewall drops the packets: the connect fails with EPERM.
      assert.equal(result.data, undefined, JSON.stringify(result));
      assert.equal(result.error, 'EPERM', JSON.stringify(result));
    } else {
      // The nspawn test host (hybrid cgroups): the rule is rendered but not enforced, and probe names why.
      assert.deepEqual(ipAddressDenyMissing, ['/sys/fs/cgroup is not the unified cgroup v2 hierarchy (a tmpfs of cgroup v1 hierarchies: hybrid or legacy layout)']);
      assert.equal((await host.run(['stat', '-f', '-c', '%T', '/sys/fs/cgroup'])).trim(), 'tmpfs');
    }
  });

  test('an Installation that allows link-local renders no IPAddressDeny=, and the gateway reaches the stand-in', async () => {
    const { result, deny } = await attempt(owner('allowed'), 'allowed', { allowLinkLocal: true });
    assert.equal(deny, '');
    assert.deepEqual(result, { data: `${CREDENTIALS}\n` });
  });
});
