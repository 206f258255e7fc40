// Gateway settings the gateway cannot start or answer readiness with: refused by document admission, keyed to the exact path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { refusedDocument } from '../../test/admission.js';
import { sshGatewayConfigurationDocument } from './document.js';

const POLICY_KEY = 'configuration.plugins.entries.codex.config.appServer.approvalPolicy';
const codex = (approvalPolicy: unknown) => ({ plugins: { entries: { codex: { enabled: true, config: { appServer: { approvalPolicy } } } } } });

/** A refusal keyed to the exact path, whose message starts with it. */
function refused(configuration: unknown, key: string): ComputeError {
  const error = refusedDocument(configuration, key.slice('configuration.'.length));
  assert.ok(error.message.startsWith(`${key}: `), error.message);
  return error;
}

describe('gateway.tls', () => {
  it('refuses enabled: true, whatever else the TLS settings say', () => {
    const error = refused({ gateway: { tls: { enabled: true } } }, 'configuration.gateway.tls.enabled');
    assert.match(error.message, /omitted or false/);
    refused({ gateway: { tls: { enabled: true, autoGenerate: true, certPath: '/etc/openclaw/tls/server.crt', keyPath: '/etc/openclaw/tls/server.key' } } }, 'configuration.gateway.tls.enabled');
  });
  it('refuses a non-boolean enabled and a non-object tls', () => {
    for (const enabled of ['true', 1, null, {}]) refused({ gateway: { tls: { enabled } } }, 'configuration.gateway.tls.enabled');
    for (const tls of [true, 'on', [], null]) refused({ gateway: { tls } }, 'configuration.gateway.tls');
  });
  it('admits tls omitted, empty, or with enabled false and its other fields', () => {
    for (const gateway of [{}, { tls: {} }, { tls: { enabled: false } }, { tls: { enabled: false, autoGenerate: false, certPath: '/etc/openclaw/tls/server.crt' } }]) {
      const { text } = sshGatewayConfigurationDocument({ gateway });
      assert.deepEqual(JSON.parse(text).gateway.tls, gateway.tls);
    }
  });
});

describe('the Codex app-server approvalPolicy', () => {
  it('refuses the retired "untrusted" at its exact key path, without echoing other values', () => {
    const error = refused(codex('untrusted'), POLICY_KEY);
    assert.match(error.message, /retired/);
  });
  it('admits the policies OpenClaw documents (never, on-request), an omitted one, and "untrusted" under another plugin', () => {
    for (const policy of ['never', 'on-request', undefined]) assert.doesNotThrow(() => sshGatewayConfigurationDocument(codex(policy)));
    assert.doesNotThrow(() => sshGatewayConfigurationDocument({ plugins: { entries: { other: { config: { appServer: { approvalPolicy: 'untrusted' } } } } } }));
    assert.doesNotThrow(() => sshGatewayConfigurationDocument({ plugins: { entries: { codex: { config: 'untrusted' } } } }));
  });
  it('refuses "untrusted" together with an admitted gateway.auth', () => {
    refused({ gateway: { auth: { mode: 'password' } }, ...codex('untrusted') }, POLICY_KEY);
  });
});

const gateway = (settings: Record<string, unknown>) => ({ gateway: { mode: 'local', ...settings } });
const admitted = (settings: Record<string, unknown>) => assert.doesNotThrow(() => sshGatewayConfigurationDocument(gateway(settings)), JSON.stringify(settings));

describe('keys under gateway', () => {
  it('refuses a key OpenClaw does not know there, naming it', () => {
    refused(gateway({ listen: '0.0.0.0' }), 'configuration.gateway.listen');
    refused(gateway({ Bind: 'loopback' }), 'configuration.gateway.Bind');
  });
  it('admits the keys OpenClaw knows', () => {
    admitted({ reload: { mode: 'off' }, http: { endpoints: { responses: { enabled: false } } }, nodes: {}, tools: { deny: ['browser'] }, push: {}, roles: undefined, cliAgents: { enabled: false } });
  });
});

describe('gateway.bind and customBindHost', () => {
  it('refuses a value that is no bind mode', () => {
    for (const bind of ['bogus', 'LAN', '', 1, null, ['loopback']]) refused(gateway({ bind }), 'configuration.gateway.bind');
  });
  it('refuses the legacy host aliases, which OpenClaw migrates only by rewriting the read-only snapshot', () => {
    for (const bind of ['127.0.0.1', '0.0.0.0', 'localhost', 'LocalHost', '::', '[::]', '*', '::1', '[::1]', ' 0.0.0.0 ']) {
      assert.match(refused(gateway({ bind }), 'configuration.gateway.bind').message, /legacy host alias/);
    }
  });
  it('admits every bind mode', () => {
    for (const bind of ['loopback', 'lan', 'tailnet', 'auto']) admitted({ bind });
  });
  it('refuses custom without one dotted-decimal IPv4 customBindHost', () => {
    for (const customBindHost of [undefined, '', ' ', 'localhost', '::1', '127.000.0.1', '127.1', '256.0.0.1', 127]) {
      refused(gateway({ bind: 'custom', customBindHost }), 'configuration.gateway.customBindHost');
    }
  });
  it('admits custom with loopback, the wildcard or a host address, and customBindHost without custom', () => {
    for (const customBindHost of ['127.0.0.1', '127.0.0.2', '0.0.0.0', '10.213.1.2', ' 127.0.0.1 ']) admitted({ bind: 'custom', customBindHost });
    admitted({ bind: 'loopback', customBindHost: 'localhost' });
  });
});

describe('gateway.tailscale', () => {
  it('refuses serve and funnel, any other mode, and a non-object', () => {
    for (const mode of ['serve', 'funnel', 'bogus', true]) refused(gateway({ tailscale: { mode } }), 'configuration.gateway.tailscale.mode');
    for (const tailscale of ['serve', [], null]) refused(gateway({ tailscale }), 'configuration.gateway.tailscale');
  });
  it('refuses the retired resetOnExit and serviceName, and any other key', () => {
    refused(gateway({ tailscale: { mode: 'off', resetOnExit: true } }), 'configuration.gateway.tailscale.resetOnExit');
    refused(gateway({ tailscale: { serviceName: 'svc:openclaw' } }), 'configuration.gateway.tailscale.serviceName');
  });
  it('admits off, omitted, and preserveFunnel while off', () => {
    admitted({ tailscale: { mode: 'off' } });
    admitted({ tailscale: {} });
    admitted({ tailscale: { mode: 'off', preserveFunnel: true } });
  });
});

describe('gateway.trustedProxies in trusted-proxy mode', () => {
  const proxy = (trustedProxies: unknown) =>
    gateway({ ...(trustedProxies === undefined ? {} : { trustedProxies }), auth: { mode: 'trusted-proxy', trustedProxy: { userHeader: 'x-forwarded-user' } } });
  it('refuses none, an empty list and non-string entries', () => {
    for (const trustedProxies of [undefined, [], [1], '192.0.2.1']) refused(proxy(trustedProxies), 'configuration.gateway.trustedProxies');
  });
  it('admits a listed proxy, and password mode without any', () => {
    assert.doesNotThrow(() => sshGatewayConfigurationDocument(proxy(['192.0.2.1'])));
    admitted({});
  });
});

describe('settings the audit found harmless to readiness', () => {
  it('admits them', () => {
    admitted({ controlUi: { basePath: '/openclaw' } });
    admitted({ controlUi: { basePath: '/readyz', enabled: false, root: '/nonexistent/ui', allowedOrigins: ['https://control.example.com'] } });
    admitted({ publicOrigin: 'https://gateway.example.com', http: { securityHeaders: { strictTransportSecurity: 'max-age=31536000' } } });
    admitted({ portals: { ingress: { domain: 'portals.example.com', port: 18950 } } });
  });
});
