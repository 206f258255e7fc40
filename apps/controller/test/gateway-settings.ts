// The gateway-settings cases against the real OpenClaw gateway, shared by gateway-settings.e2e and
// gateway-settings-refused.e2e (the refused values, half each) and gateway-settings-admitted.e2e:
// each file boots its own host, so the pool runs the slow refused cases beside the admitted ones.
import assert from 'node:assert/strict';
import { before } from 'node:test';
import { sha256Hex, agentLayout, revisionLayout, GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { ComputeError, activateArgs, prepareArgs } from '@occ-ssh/protocol';
import type { TestHost } from '@occ-ssh/testhost';
import { MANAGED_PASSWORD_REF } from '../src/admission/document.js';
import { createDefaultDeps } from '../src/deps.js';
import type { SshComputeDriver } from '../src/driver.js';
import { OperationRunner } from '../src/run-operation.js';
import { agentBinding, memoryLogger, revisionOf } from './hosts.js';
import { RealGatewayHost } from './real-gateway.js';

const ROOT = '/var/lib/openclaw-enterprise';
const UNIT_DIR = '/etc/systemd/system';
const PASSWORD = { mode: 'password', password: { ...MANAGED_PASSWORD_REF } };
/**
 * How long a refused document's activation waits for /readyz: far beyond the ~10 s the gateway needs
 * on an idle host to reach its refusal. Not shorter: a not-ready activation stops the unit, and on a
 * loaded machine a 20-second wait stopped gateways before they had logged why they refuse.
 */
const REFUSED_WAIT_MS = 60_000;
/** How long after the refused activation its gateway's own refusal may take to reach the journal. */
const REFUSAL_LOG_WAIT_MS = 90_000;
/**
 * What an admitted gateway is given to answer: the first start of the real gateway on a fresh host
 * passed 90 s with other real gateways starting beside it on two cores; kept below the helper's
 * 170-second deadline.
 */
const READINESS_MS = 150_000;

export interface Refused {
  name: string;
  gateway: Record<string, unknown>;
  /** The key admission names. */
  key: string;
  /** What OpenClaw logs to the journal, showing why it never answers. */
  journal: RegExp;
  /** The gateway keeps running after that line (it serves, but not plain-HTTP /readyz): the activation's own wait must end. */
  keepsRunning?: true;
}

export const REFUSED: Refused[] = [
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
  { name: 'native TLS', gateway: { tls: { enabled: true } }, key: 'gateway.tls.enabled', journal: /gateway tls: generated self-signed cert/, keepsRunning: true },
];

/** Stands for the test host's own address, known once it boots. */
const HOST_ADDRESS = '<test host address>';
/**
 * Values next to the refused ones, each of which starts and answers loopback /readyz in the unit. A
 * row carries one bind mode (each is its own start) and, where the mode leaves room, other settings
 * beside it: every real start costs about 20 CPU-seconds of the pool's two cores.
 */
export const ADMITTED: [string, Record<string, unknown>][] = [
  [
    'bind lan, whose Control UI origins OpenClaw seeds itself, with publicOrigin, portal ingress, disabled HTTP endpoints, reload off and Tailscale off',
    {
      bind: 'lan',
      publicOrigin: 'https://gateway.example.com',
      portals: { ingress: { domain: 'portals.example.com', port: 18950 } },
      http: { endpoints: { chatCompletions: { enabled: false }, responses: { enabled: false } } },
      reload: { mode: 'off' },
      tailscale: { mode: 'off', preserveFunnel: true },
    },
  ],
  ['bind custom on the host address (OpenClaw adds 127.0.0.1 on the port)', { bind: 'custom', customBindHost: HOST_ADDRESS }],
  ['bind auto with a Control UI base path of /readyz and a missing UI root', { bind: 'auto', controlUi: { basePath: '/readyz', root: '/nonexistent/ui' } }],
  ['bind tailnet on a host without a tailnet address', { bind: 'tailnet' }],
];

/** One host, one driver and one Namespace with two Agents: one for refused documents, one kept serving. */
export class GatewaySettingsHost {
  /** The wire a driver released before these refusals would have used: no document admission. */
  private earlier!: OperationRunner;
  private readonly refusedAgent = agentBinding('gs-refused', 'stable');
  private readonly keptAgent = agentBinding('gs-kept', 'stable');
  private readonly layout = agentLayout(ROOT, UNIT_DIR, this.refusedAgent.namespace.id, this.refusedAgent.agent.id);
  private readonly owner = { namespace: { ...this.refusedAgent.namespace }, agent: { id: this.refusedAgent.agent.id }, servicePrincipal: { id: this.refusedAgent.agent.servicePrincipalId } };
  private readonly kept = { namespace: this.refusedAgent.namespace, agent: { ...this.keptAgent.agent, namespaceId: this.refusedAgent.namespace.id } };
  private readonly gw: RealGatewayHost;
  private number = 0;
  private keptNumber = 0;

  /** Registers the suite's before and after hooks; call it inside the describe. */
  constructor(hostName: string) {
    const { logger } = memoryLogger();
    this.gw = new RealGatewayHost(hostName, this.refusedAgent, { logger, readinessTimeoutMs: READINESS_MS, deleteNamespaceAfter: true });
    before(() => {
      this.earlier = new OperationRunner(this.gw.configuration, createDefaultDeps(this.gw.configuration, { logger }));
      this.gw.driver.bindAgent(this.kept);
    });
  }

  private get host(): TestHost {
    return this.gw.host;
  }
  private get driver(): SshComputeDriver {
    return this.gw.driver;
  }

  /** Refused by admission; staged as a driver before the refusal would have, it never answers /readyz; stop and retire still work. */
  async refused({ gateway, key, journal, keepsRunning }: Refused): Promise<void> {
    const { driver, host, layout, owner } = this;
    const configuration = { gateway: { mode: 'local', auth: PASSWORD, ...gateway } };
    assert.throws(
      () => driver.validateGatewaySettings(configuration),
      (error: unknown) => error instanceof ComputeError && error.code === 'admission' && error.permanent && error.details.key === `configuration.${key}`,
    );
    const revision = revisionOf(this.refusedAgent, ++this.number, configuration);
    const document = `${JSON.stringify(configuration, null, 2)}\n`;
    const hash = sha256Hex(document);
    const auth = (configuration.gateway.auth as { mode: string }).mode === 'trusted-proxy' ? 'trusted-proxy' : 'password';
    await this.earlier.run('stable', 'prepare-revision', prepareArgs(owner, revision, { text: document, hash, auth }));
    const since = (await host.run(['date', '+%s'])).trim();
    const activation = this.earlier.run('stable', 'activate-revision', activateArgs(owner, revision, { configurationHash: hash, launchEnvironment: {}, readinessTimeoutMs: REFUSED_WAIT_MS }));
    let settled = false;
    const outcome = activation.then(
      () => ((settled = true), undefined),
      (error: unknown) => ((settled = true), error),
    );
    // A loaded machine can leave the gateway still starting when the wait ends, or its last lines not
    // yet written by the namespace's journald: read until its refusal shows, within a bound. A gateway
    // that logged its refusal exits without having answered: the current driver then stops the
    // revision while the activation still waits, and the activation ends taken over (conflict); left
    // alone it would wait through systemd's restarts, each a full start of OpenClaw. One that keeps
    // running after its line (native TLS) is left to the activation's own verdict.
    const readLog = () => host.run(['journalctl', `--namespace=+${GATEWAY_LOG_NAMESPACE}`, '-u', layout.unitName, '--since', `@${since}`, '-o', 'cat', '--no-pager']);
    const refused = (text: string) => journal.test(text) && (settled || !keepsRunning);
    let log = await readLog();
    for (const until = Date.now() + REFUSED_WAIT_MS + REFUSAL_LOG_WAIT_MS; Date.now() < until && !refused(log); log = await readLog()) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    const stoppedEarly = !settled;
    await driver.stopRevision(revision);
    const error = await outcome;
    // Stopped early, the activation may still have given up on its own a moment before the stop took over.
    const takenOver = stoppedEarly && error instanceof ComputeError && error.code === 'conflict' && /took over/.test(error.message);
    assert.ok(takenOver || (error instanceof ComputeError && error.code === 'not-ready'), `the activation ended not-ready or taken over by the stop: ${String(error)}`);
    assert.match(log, journal, log.slice(-2000));

    assert.notEqual((await host.exec(['systemctl', 'is-active', '--quiet', layout.unitName])).code, 0);
    assert.equal((await host.exec(['test', '-e', layout.current])).code, 1);
    await driver.retireRevision(revision);
    assert.equal((await host.exec(['test', '-e', revisionLayout(layout.dir, revision.id).dir])).code, 1);
  }

  /** Admitted, and the real gateway starts and answers /readyz. */
  async admitted(gateway: Record<string, unknown>): Promise<void> {
    const { driver, kept } = this;
    const settings = gateway['customBindHost'] === HOST_ADDRESS ? { ...gateway, customBindHost: this.host.address } : gateway;
    const revision = revisionOf(kept, ++this.keptNumber, { gateway: { mode: 'local', ...settings } });
    assert.doesNotThrow(() => driver.validateGatewaySettings(revision.configuration));
    assert.equal((await driver.prepareRevision(revision)).ready, true);
    await driver.activateRevision(revision);
    const agent = await this.gw.agentOnceReady('stable', kept.agent.id);
    assert.equal(agent?.servedRevisionId, revision.id);
    assert.equal(agent?.ready, true);
  }

  /** With no bind, on a host OpenClaw takes for a container, the real gateway still listens on loopback only. */
  async omittedBindOnContainerHost(): Promise<void> {
    const { driver, host } = this;
    // OpenClaw's container check reads /.dockerenv; without a bind it would then listen on 0.0.0.0.
    await host.run(['touch', '/.dockerenv']);
    try {
      const revision = revisionOf(this.kept, ++this.keptNumber, { gateway: { mode: 'local' } });
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
  }
}
