// sshGatewayConfigurationDocument: the supported gateway.auth modes, refusals and deterministic rendering.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { MAX_DOCUMENT_BYTES } from '@occ-ssh/protocol';
import { refusedDocument } from '../../test/admission.js';
import { MANAGED_PASSWORD_REF, sshGatewayConfigurationDocument } from './document.js';

const REF = { source: 'env', provider: 'default', id: 'OPENCLAW_GATEWAY_PASSWORD' } as const;
/** OpenClaw starts trusted-proxy mode only with at least one trusted proxy. */
const PROXIES = ['192.0.2.1'];
const TRUST = { userHeader: 'x-forwarded-user', requiredHeaders: ['x-forwarded-proto'], allowUsers: ['alice'] };

function render(configuration: unknown) {
  const rendered = sshGatewayConfigurationDocument(configuration);
  return { ...rendered, document: JSON.parse(rendered.text) as { gateway: { mode: string; auth: Record<string, unknown> } } & Record<string, unknown> };
}

const refused = refusedDocument;

describe('sshGatewayConfigurationDocument: password mode', () => {
  it('renders omitted auth as password mode with the exact managed env SecretRef', () => {
    assert.deepEqual({ ...MANAGED_PASSWORD_REF }, REF);
    for (const configuration of [{}, { gateway: {} }, { gateway: { auth: {} } }]) {
      const { document, auth } = render(configuration);
      assert.equal(auth, 'password');
      assert.deepEqual(document.gateway.auth, { mode: 'password', password: REF });
    }
  });

  it('renders an omitted bind as loopback and keeps an explicit one', () => {
    for (const configuration of [{}, { gateway: {} }, { gateway: { auth: { mode: 'password' } } }]) assert.equal((render(configuration).document.gateway as { bind?: string }).bind, 'loopback');
    for (const bind of ['lan', 'auto', 'tailnet']) assert.equal((render({ gateway: { bind } }).document.gateway as { bind?: string }).bind, bind);
  });

  it('accepts explicit password mode with or without the exact ref, in any key order', () => {
    const reordered = { id: 'OPENCLAW_GATEWAY_PASSWORD', source: 'env', provider: 'default' };
    for (const auth of [{ mode: 'password' }, { mode: 'password', password: REF }, { password: reordered }, { mode: 'password', password: reordered, rateLimit: { maxAttempts: 30 } }]) {
      const { document, auth: mode } = render({ gateway: { auth } });
      assert.equal(mode, 'password');
      assert.equal(document.gateway.auth.mode, 'password');
      assert.deepEqual(document.gateway.auth.password, REF);
    }
  });

  it('refuses any password other than the exact ref', () => {
    const wrong: unknown[] = [
      'hunter2',
      '',
      null,
      { ...REF, id: 'OTHER_PASSWORD' },
      { ...REF, provider: 'vault' },
      { ...REF, source: 'file' },
      { ...REF, extra: true },
      { source: 'env', id: 'OPENCLAW_GATEWAY_PASSWORD' },
      [REF],
    ];
    for (const password of wrong) {
      const error = refused({ gateway: { auth: { mode: 'password', password } } }, 'gateway.auth.password');
      assert.ok(!error.message.includes('hunter2'));
    }
    refused({ gateway: { auth: { password: 'hunter2' } } }, 'gateway.auth.password');
  });

  it('refuses trusted-proxy-only fields in password mode', () => {
    refused({ gateway: { auth: { mode: 'password', trustedProxy: TRUST } } }, 'gateway.auth.trustedProxy');
    refused({ gateway: { auth: { trustedProxy: TRUST } } }, 'gateway.auth.trustedProxy');
    refused({ gateway: { auth: { identityScopes: { alice: ['operator.read'] } } } }, 'gateway.auth.identityScopes');
  });
});

describe('sshGatewayConfigurationDocument: trusted-proxy mode', () => {
  it('keeps the configured trust and adds no password', () => {
    const scopes = { alice: ['operator.read', 'operator.write'] };
    const { document, auth } = render({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: TRUST, identityScopes: scopes } } });
    assert.equal(auth, 'trusted-proxy');
    assert.deepEqual(document.gateway.auth, { mode: 'trusted-proxy', trustedProxy: TRUST, identityScopes: scopes });
  });

  it('opts into the managed password only with the exact ref', () => {
    const { document, auth } = render({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: TRUST, password: REF } } });
    assert.equal(auth, 'trusted-proxy-password');
    assert.deepEqual(document.gateway.auth, { mode: 'trusted-proxy', trustedProxy: TRUST, password: REF });
    for (const password of ['hunter2', { ...REF, id: 'PROXY_PASSWORD' }, { ...REF, provider: 'vault' }, { ...REF, extra: 1 }]) {
      refused({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: TRUST, password } } }, 'gateway.auth.password');
    }
  });

  it('needs a userHeader', () => {
    refused({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy' } } }, 'gateway.auth.trustedProxy.userHeader');
    refused({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: {} } } }, 'gateway.auth.trustedProxy.userHeader');
    refused({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: { userHeader: 7 } } } }, 'gateway.auth.trustedProxy.userHeader');
  });
});

describe("sshGatewayConfigurationDocument: OpenClaw's own types, field by field", () => {
  const proxy = (trustedProxy: unknown, more: Record<string, unknown> = {}) => ({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy, ...more } } });

  it('admits every field OpenClaw gives trustedProxy, rateLimit and identityScopes', () => {
    const full = {
      ...TRUST,
      allowLoopback: false,
      cloudflareAccessOidc: { issuer: 'https://team.cloudflareaccess.com', providerId: 'idp-1', githubAccountIdClaim: 'github_id' },
      deviceAutoApprove: { enabled: true, scopes: ['operator.read'] },
    };
    const rateLimit = { maxAttempts: 5, windowMs: 60_000, lockoutMs: 300_000, exemptLoopback: true };
    const { document } = render(proxy(full, { rateLimit, identityScopes: { 'alice@example.com': ['operator.admin'] }, allowTailscale: false }));
    assert.deepEqual(document.gateway.auth.trustedProxy, full);
    assert.deepEqual(document.gateway.auth.rateLimit, rateLimit);
    assert.equal(document.gateway.auth.allowTailscale, false);
    assert.deepEqual(render({ gateway: { auth: { rateLimit, allowTailscale: false } } }).document.gateway.auth.rateLimit, rateLimit);
  });

  it('refuses an unknown nested key, which makes the real gateway refuse to start', () => {
    refused(proxy({ ...TRUST, userHeaders: ['x'] }), 'gateway.auth.trustedProxy.userHeaders');
    refused(proxy({ ...TRUST, deviceAutoApprove: { enabled: true, scope: [] } }), 'gateway.auth.trustedProxy.deviceAutoApprove.scope');
    refused(
      proxy({ ...TRUST, cloudflareAccessOidc: { issuer: 'https://a.cloudflareaccess.com', providerId: 'p', githubAccountIdClaim: 'c', audience: 'x' } }),
      'gateway.auth.trustedProxy.cloudflareAccessOidc.audience',
    );
    refused({ gateway: { auth: { rateLimit: { perMinute: 30 } } } }, 'gateway.auth.rateLimit.perMinute');
  });

  it('refuses each field with the wrong type', () => {
    refused(proxy({ userHeader: '' }), 'gateway.auth.trustedProxy.userHeader');
    refused(proxy({ userHeader: ['x-user'] }), 'gateway.auth.trustedProxy.userHeader');
    refused(proxy('x-user'), 'gateway.auth.trustedProxy');
    refused(proxy({ ...TRUST, requiredHeaders: 'x-forwarded-proto' }), 'gateway.auth.trustedProxy.requiredHeaders');
    refused(proxy({ ...TRUST, allowUsers: [7] }), 'gateway.auth.trustedProxy.allowUsers.0');
    refused(proxy({ ...TRUST, allowLoopback: 'yes' }), 'gateway.auth.trustedProxy.allowLoopback');
    refused(proxy({ ...TRUST, cloudflareAccessOidc: { issuer: 'https://evil.example.com', providerId: 'p', githubAccountIdClaim: 'c' } }), 'gateway.auth.trustedProxy.cloudflareAccessOidc.issuer');
    refused(
      proxy({ ...TRUST, cloudflareAccessOidc: { issuer: 'https://a.cloudflareaccess.com', providerId: '  ', githubAccountIdClaim: 'c' } }),
      'gateway.auth.trustedProxy.cloudflareAccessOidc.providerId',
    );
    refused(proxy({ ...TRUST, deviceAutoApprove: { enabled: 1 } }), 'gateway.auth.trustedProxy.deviceAutoApprove.enabled');
    refused(proxy({ ...TRUST, deviceAutoApprove: { scopes: [''] } }), 'gateway.auth.trustedProxy.deviceAutoApprove.scopes.0');
    refused(proxy(TRUST, { identityScopes: ['operator.read'] }), 'gateway.auth.identityScopes');
    refused(proxy(TRUST, { identityScopes: { alice: ['operator.root'] } }), 'gateway.auth.identityScopes.alice.0');
    refused(proxy(TRUST, { identityScopes: { alice: 'operator.read' } }), 'gateway.auth.identityScopes.alice');
    refused({ gateway: { auth: { rateLimit: { maxAttempts: '5' } } } }, 'gateway.auth.rateLimit.maxAttempts');
    refused({ gateway: { auth: { rateLimit: { exemptLoopback: 'true' } } } }, 'gateway.auth.rateLimit.exemptLoopback');
    refused({ gateway: { auth: { rateLimit: [] } } }, 'gateway.auth.rateLimit');
  });

  it("reads OpenClaw's ${OPENCLAW_GATEWAY_PASSWORD} spelling as the managed ref and renders the ref", () => {
    for (const password of ['${OPENCLAW_GATEWAY_PASSWORD}', '$OPENCLAW_GATEWAY_PASSWORD']) {
      assert.deepEqual(render({ gateway: { auth: { mode: 'password', password } } }).document.gateway.auth.password, REF);
      const proxied = render(proxy(TRUST, { password }));
      assert.equal(proxied.auth, 'trusted-proxy-password');
      assert.deepEqual(proxied.document.gateway.auth.password, REF);
    }
    for (const password of ['${OTHER_PASSWORD}', ' ${OPENCLAW_GATEWAY_PASSWORD}', '${OPENCLAW_GATEWAY_PASSWORD}x', '${openclaw_gateway_password}']) {
      refused({ gateway: { auth: { password } } }, 'gateway.auth.password');
    }
  });
});

describe('sshGatewayConfigurationDocument: the provider of the managed password', () => {
  const withProvider = (provider: unknown, auth: Record<string, unknown> = {}) => ({ secrets: { providers: { default: provider } }, gateway: { trustedProxies: PROXIES, auth } });

  it('admits no default provider, an env one whose allowlist names the managed password, or another source (OpenClaw then uses its built-in env provider)', () => {
    for (const provider of [undefined, { source: 'env' }, { source: 'env', allowlist: ['OPENCLAW_GATEWAY_PASSWORD', 'MODEL_KEY'] }, { source: 'file', path: '/etc/secrets.json' }]) {
      assert.doesNotThrow(() => sshGatewayConfigurationDocument(withProvider(provider)));
    }
  });

  it('refuses an env default provider whose allowlist leaves the managed password out', () => {
    refused(withProvider({ source: 'env', allowlist: ['MODEL_KEY'] }), 'secrets.providers.default.allowlist');
    refused(withProvider({ source: 'env', allowlist: [] }, { mode: 'trusted-proxy', trustedProxy: TRUST, password: REF }), 'secrets.providers.default.allowlist');
    refused(withProvider({ source: 'env', allowlist: 'OPENCLAW_GATEWAY_PASSWORD' }), 'secrets.providers.default.allowlist');
  });

  it('leaves the provider alone in trusted-proxy mode without the managed password', () => {
    assert.doesNotThrow(() => sshGatewayConfigurationDocument(withProvider({ source: 'env', allowlist: ['MODEL_KEY'] }, { mode: 'trusted-proxy', trustedProxy: TRUST })));
  });
});

describe('sshGatewayConfigurationDocument: refusals', () => {
  it('refuses modes token, none and unknown ones', () => {
    for (const mode of ['token', 'none', 'tailscale', 'PASSWORD', 'trusted_proxy', 7, false]) {
      refused({ gateway: { auth: { mode } } }, 'gateway.auth.mode');
    }
  });

  it('refuses unsupported auth fields', () => {
    refused({ gateway: { auth: { token: 'abc' } } }, 'gateway.auth.token');
    refused({ gateway: { auth: { mode: 'password', allowTailscale: true } } }, 'gateway.auth.allowTailscale');
    refused({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: TRUST, allowTailscale: true } } }, 'gateway.auth.allowTailscale');
    refused({ gateway: { auth: { allowTailscale: 'false' } } }, 'gateway.auth.allowTailscale');
    refused({ gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: TRUST, token: { source: 'env', provider: 'default', id: 'T' } } } }, 'gateway.auth.token');
  });

  it('does not echo an unsupported field value', () => {
    const error = refused({ gateway: { auth: { token: 'sk-secret-123' } } });
    assert.ok(!error.message.includes('sk-secret-123'));
  });

  it('refuses gateway.port, which the driver assigns', () => {
    refused({ gateway: { port: 18789 } }, 'gateway.port');
  });

  it('refuses a non-object document, gateway or auth', () => {
    for (const configuration of [null, undefined, [], 'text', 42, true, new Date(0), new Map()]) refused(configuration, '');
    for (const gateway of [[], 'local', 1]) refused({ gateway }, 'gateway');
    for (const auth of [[], 'password', 1]) refused({ gateway: { auth } }, 'gateway.auth');
  });

  it('refuses a document that renders above MAX_DOCUMENT_BYTES', () => {
    refused({ notes: 'a'.repeat(MAX_DOCUMENT_BYTES) }, '');
    assert.doesNotThrow(() => sshGatewayConfigurationDocument({ notes: 'a'.repeat(MAX_DOCUMENT_BYTES - 1000) }));
  });
});

describe('sshGatewayConfigurationDocument: rendering', () => {
  const input = {
    zeta: { b: 2, a: [{ y: 1, x: 2 }] },
    gateway: { bind: 'loopback', auth: { mode: 'password' } },
    agents: { list: [{ id: 'main' }] },
  };

  it('is deterministic: keys sorted at every level, the same text and hash for reordered input', () => {
    const first = sshGatewayConfigurationDocument(input);
    const reordered = sshGatewayConfigurationDocument({
      agents: { list: [{ id: 'main' }] },
      gateway: { auth: { mode: 'password' }, bind: 'loopback' },
      zeta: { a: [{ x: 2, y: 1 }], b: 2 },
    });
    assert.equal(reordered.text, first.text);
    assert.equal(reordered.hash, first.hash);
    assert.equal(
      first.text,
      `${JSON.stringify(
        {
          agents: { list: [{ id: 'main' }] },
          gateway: { auth: { mode: 'password', password: { id: 'OPENCLAW_GATEWAY_PASSWORD', provider: 'default', source: 'env' } }, bind: 'loopback', mode: 'local' },
          zeta: { a: [{ x: 2, y: 1 }], b: 2 },
        },
        null,
        2,
      )}\n`,
    );
    assert.deepEqual(Object.keys(JSON.parse(first.text).gateway.auth.password), ['id', 'provider', 'source']);
  });

  it('hash is the SHA-256 of text', () => {
    const rendered = sshGatewayConfigurationDocument(input);
    assert.equal(rendered.hash, createHash('sha256').update(rendered.text).digest('hex'));
    assert.match(rendered.hash, /^[0-9a-f]{64}$/);
  });

  it('sets gateway.mode "local" when missing and refuses any other mode, in which OpenClaw starts no gateway', () => {
    assert.equal(render({}).document.gateway.mode, 'local');
    assert.equal(render({ gateway: { mode: 'local' } }).document.gateway.mode, 'local');
    for (const mode of ['remote', 'LOCAL', '', null, 1]) refused({ gateway: { mode } }, 'gateway.mode');
  });

  it('keeps everything else in the document', () => {
    const { document } = render({ channels: { telegram: { enabled: true } }, gateway: { bind: 'loopback' }, logging: { level: 'debug' } });
    assert.deepEqual(document.channels, { telegram: { enabled: true } });
    assert.deepEqual(document.logging, { level: 'debug' });
    assert.equal((document.gateway as Record<string, unknown>).bind, 'loopback');
  });

  it('does not mutate its input', () => {
    const configuration = { gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: { ...TRUST } } }, other: { list: [1, 2] } };
    const before = structuredClone(configuration);
    sshGatewayConfigurationDocument(configuration);
    assert.deepEqual(configuration, before);
    const bare: Record<string, unknown> = { agents: {} };
    sshGatewayConfigurationDocument(bare);
    assert.deepEqual(bare, { agents: {} });
    const partial = { gateway: { auth: {} } };
    sshGatewayConfigurationDocument(partial);
    assert.deepEqual(partial, { gateway: { auth: {} } });
  });

  it('ends with exactly one newline', () => {
    const { text } = sshGatewayConfigurationDocument({});
    assert.ok(text.endsWith('}\n'));
    assert.ok(!text.endsWith('\n\n'));
  });
});
