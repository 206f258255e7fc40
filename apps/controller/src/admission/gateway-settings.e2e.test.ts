// The real OpenClaw gateway, in the driver's own unit on a real host, with each gateway setting the
// audit of OpenClaw 2026.9.6 found: every value admission refuses keeps loopback /readyz from ever
// answering (staged the way a driver released before the refusal would have, then activated), and
// every neighbouring value admission keeps starts and becomes ready. A revision staged before its
// refusal existed is still stopped and retired by the current driver, which never re-admits it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sha256Hex, agentLayout, revisionLayout } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { createDefaultDeps } from '../deps.js';
import { SshComputeDriver } from '../driver.js';
import { OperationRunner } from '../runner.js';
import { agentBinding, configFor, memoryLogger, revisionOf } from '../../test/hosts.js';
import { MANAGED_PASSWORD_REF } from './document.js';

const ROOT = '/var/lib/openclaw-enterprise';
const UNIT_DIR = '/etc/systemd/system';
const PASSWORD = { mode: 'password', password: { ...MANAGED_PASSWORD_REF } };
/** How long a refused document is given to answer: far beyond the ~10 s the gateway needs here. */
const REFUSED_WAIT_MS = 60_000;

interface Refused {
  name: string;
  gateway: Record<string, unknown>;
  /** The key admission names. */
  key: string;
  /** What OpenClaw logs to the journal, showing why it never answers. */
  journal: RegExp;
}

const REFUSED: Refused[] = [
  { name: 'an unknown key under gateway', gateway: { listen: '0.0.0.0' }, key: 'gateway.listen', journal: /Unrecognized key: "listen"/ },
  { name: 'a bind that is no mode', gateway: { bind: 'bogus' }, key: 'gateway.bind', journal: /Invalid --bind/ },
  { name: 'the legacy bind alias 0.0.0.0', gateway: { bind: '0.0.0.0' }, key: 'gateway.bind', journal: /requires state migration/ },
  { name: 'the retired tailscale.resetOnExit', gateway: { tailscale: { resetOnExit: true } }, key: 'gateway.tailscale.resetOnExit', journal: /requires state migration/ },
  { name: 'bind custom without customBindHost', gateway: { bind: 'custom' }, key: 'gateway.customBindHost', journal: /bind=custom requires gateway\.customBindHost/ },
  { name: 'bind custom with a host name', gateway: { bind: 'custom', customBindHost: 'localhost' }, key: 'gateway.customBindHost', journal: /requires a valid IPv4 customBindHost/ },
  { name: 'tailscale serve', gateway: { tailscale: { mode: 'serve' } }, key: 'gateway.tailscale.mode', journal: /Gateway failed to start: .*tailscale/ },
  { name: 'tailscale funnel', gateway: { tailscale: { mode: 'funnel' } }, key: 'gateway.tailscale.mode', journal: /Gateway failed to start: .*tailscale/ },
  {
    name: 'trusted-proxy without trustedProxies',
    gateway: { auth: { mode: 'trusted-proxy', trustedProxy: { userHeader: 'x-forwarded-user' } } },
    key: 'gateway.trustedProxies',
    journal: /requires gateway\.trustedProxies/,
  },
  { name: 'native TLS', gateway: { tls: { enabled: true } }, key: 'gateway.tls.enabled', journal: /gateway tls: generated self-signed cert/ },
];

/** Values next to the refused ones, each of which starts and answers loopback /readyz in the unit. */
/** Stands for the test host's own address, known once it boots. */
const HOST_ADDRESS = '<test host address>';
const ADMITTED: [string, Record<string, unknown>][] = [
  ['bind lan (OpenClaw seeds the Control UI origins itself)', { bind: 'lan' }],
  ['bind custom on the host address (OpenClaw adds 127.0.0.1 on the port)', { bind: 'custom', customBindHost: HOST_ADDRESS }],
  ['bind auto', { bind: 'auto' }],
  ['bind tailnet on a host without a tailnet address', { bind: 'tailnet' }],
  ['a Control UI base path of /readyz and a missing UI root', { controlUi: { basePath: '/readyz', root: '/nonexistent/ui' } }],
  [
    'publicOrigin, portal ingress, disabled HTTP endpoints, reload off and Tailscale off',
    {
      publicOrigin: 'https://gateway.example.com',
      portals: { ingress: { domain: 'portals.example.com', port: 18950 } },
      http: { endpoints: { chatCompletions: { enabled: false }, responses: { enabled: false } } },
      reload: { mode: 'off' },
      tailscale: { mode: 'off', preserveFunnel: true },
    },
  ],
];

describe('gateway settings against the real OpenClaw gateway in its unit', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  /** The wire a driver released before these refusals would have used: no document admission. */
  let earlier: OperationRunner;
  const refusedAgent = agentBinding('gs-refused', 'stable');
  const keptAgent = agentBinding('gs-kept', 'stable');
  const layout = agentLayout(ROOT, UNIT_DIR, refusedAgent.namespace.id, refusedAgent.agent.id);
  const owner = { namespace: { ...refusedAgent.namespace }, agent: { id: refusedAgent.agent.id }, servicePrincipal: { id: refusedAgent.agent.servicePrincipalId } };
  const kept = { namespace: refusedAgent.namespace, agent: { ...keptAgent.agent, namespaceId: refusedAgent.namespace.id } };
  let number = 0;
  let keptNumber = 0;

  before(async () => {
    host = await startTestHost({ name: 'gwsettings' });
    const configuration = configFor({ stable: host }, { realOpenClaw: true });
    const { logger } = memoryLogger();
    driver = new SshComputeDriver({ configuration, logger, readinessTimeoutMs: 90_000 });
    earlier = new OperationRunner(configuration, createDefaultDeps(configuration, { logger }));
    await driver.preflight();
    assert.equal((await driver.ensureNamespace(refusedAgent.namespace)).namespaceReady, true);
    driver.bindAgent(refusedAgent);
    driver.bindAgent(kept);
  });
  after(async () => {
    if (driver && host) await driver.deleteNamespace(refusedAgent.namespace);
    await driver?.close();
    await host?.down();
  });

  for (const { name, gateway, key, journal } of REFUSED) {
    test(`refused: ${name}; staged as before the refusal, the gateway never answers /readyz, and stop and retire still work`, async () => {
      const configuration = { gateway: { mode: 'local', auth: PASSWORD, ...gateway } };
      assert.throws(
        () => driver.validateGatewaySettings(configuration),
        (error: unknown) => error instanceof ComputeError && error.code === 'admission' && error.permanent && error.details.key === `configuration.${key}`,
      );
      const revision = revisionOf(refusedAgent, ++number, configuration);
      const document = `${JSON.stringify(configuration, null, 2)}\n`;
      const hash = sha256Hex(document);
      const auth = (configuration.gateway.auth as { mode: string }).mode === 'trusted-proxy' ? 'trusted-proxy' : 'password';
      const identity = { id: revision.id, number: revision.revision };
      await earlier.run('stable', 'prepare-revision', { owner, revision: identity, harness: 'openclaw/embedded', configuration: { document, hash, auth } }, undefined, {});
      const since = (await host.run(['date', '+%s'])).trim();
      const activation = earlier.run('stable', 'activate-revision', { owner, revision: identity, configurationHash: hash, launchEnvironment: {}, readinessTimeoutMs: REFUSED_WAIT_MS }, undefined, {});
      await assert.rejects(activation, (error: unknown) => error instanceof ComputeError && error.code === 'not-ready');
      const log = await host.run(['journalctl', '-u', layout.unitName, '--since', `@${since}`, '-o', 'cat', '--no-pager']);
      assert.match(log, journal, log.slice(-2000));

      await driver.stopRevision(revision);
      assert.notEqual((await host.exec(['systemctl', 'is-active', '--quiet', layout.unitName])).code, 0);
      assert.equal((await host.exec(['test', '-e', layout.current])).code, 1);
      await driver.retireRevision(revision);
      assert.equal((await host.exec(['test', '-e', revisionLayout(layout.dir, revision.id).dir])).code, 1);
    });
  }

  for (const [name, gateway] of ADMITTED) {
    test(`admitted: ${name}; the real gateway starts and answers /readyz`, async () => {
      const settings = gateway.customBindHost === HOST_ADDRESS ? { ...gateway, customBindHost: host.address } : gateway;
      const revision = revisionOf(kept, ++keptNumber, { gateway: { mode: 'local', ...settings } });
      assert.doesNotThrow(() => driver.validateGatewaySettings(revision.configuration));
      assert.equal((await driver.prepareRevision(revision)).ready, true);
      await driver.activateRevision(revision);
      const agent = (await driver.inventory('stable')).namespaces.flatMap((ns) => ns.agents).find((a) => a.agentId === kept.agent.id);
      assert.equal(agent?.servedRevisionId, revision.id);
      assert.equal(agent?.ready, true);
    });
  }

  test('an omitted bind is rendered as loopback: on a host OpenClaw takes for a container, the real gateway still listens on loopback only', async () => {
    // OpenClaw's container check reads /.dockerenv; without a bind it would then listen on 0.0.0.0.
    await host.run(['touch', '/.dockerenv']);
    try {
      const revision = revisionOf(kept, ++keptNumber, { gateway: { mode: 'local' } });
      assert.equal((await driver.prepareRevision(revision)).ready, true);
      await driver.activateRevision(revision);
      const { port } = await driver.gatewayAddress(revision);
      const listeners = (await host.run(['ss', '-Hltn', `sport = :${port}`])).split('\n').filter(Boolean);
      const local = listeners.map((line) => line.trim().split(/\s+/)[3]);
      assert.ok(local.length > 0, 'the gateway listens');
      for (const address of local) assert.match(address!, /^(127\.0\.0\.1|\[::1\]):\d+$/, listeners.join('\n'));
    } finally {
      await host.run(['rm', '-f', '/.dockerenv']);
    }
  });
});
