// OpenClaw's own `openclaw config validate`, on a real test host, agrees with gateway.auth admission:
// every document admitted here is valid, and each field-type refusal is one OpenClaw makes too. An
// OpenClaw upgrade that tightens its schema fails this test, not a deploy after OCC's commit. Two
// refusals the schema cannot show are proven by starting the real gateway, which exits at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { MANAGED_PASSWORD_REF, sshGatewayConfigurationDocument } from './document.js';

const DIR = '/root/validate';
const TRUST = { userHeader: 'x-forwarded-user' };
/** OpenClaw starts trusted-proxy mode only with a trusted proxy (gateway-settings.e2e.test.ts). */
const PROXIES = ['192.0.2.1'];

/** Inputs covering every gateway.auth field and form admission accepts. */
const ADMITTED: Record<string, unknown> = {
  'omitted auth (managed password)': {},
  'the ${OPENCLAW_GATEWAY_PASSWORD} string form': { gateway: { auth: { mode: 'password', password: '${OPENCLAW_GATEWAY_PASSWORD}' } } },
  'password mode with every rateLimit field and allowTailscale false': {
    gateway: { auth: { mode: 'password', password: { ...MANAGED_PASSWORD_REF }, allowTailscale: false, rateLimit: { maxAttempts: 5, windowMs: 60_000, lockoutMs: 300_000, exemptLoopback: true } } },
  },
  'minimal trusted proxy': { gateway: { trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: TRUST } } },
  'an env default provider whose allowlist names the managed password': { secrets: { providers: { default: { source: 'env', allowlist: ['OPENCLAW_GATEWAY_PASSWORD'] } } } },
  'a file provider under the default alias (the built-in env provider still resolves the managed ref)': { secrets: { providers: { default: { source: 'file', path: '/etc/openclaw-secrets.json' } } } },
  'trusted proxy with every field, identity scopes and the managed password': {
    gateway: {
      trustedProxies: PROXIES,
      auth: {
        mode: 'trusted-proxy',
        password: '$OPENCLAW_GATEWAY_PASSWORD',
        allowTailscale: false,
        identityScopes: { 'alice@example.com': ['operator.admin'], bob: ['operator.read', 'operator.talk.secrets'] },
        rateLimit: { maxAttempts: 10 },
        trustedProxy: {
          userHeader: 'x-forwarded-user',
          requiredHeaders: ['x-forwarded-proto'],
          allowUsers: ['alice@example.com'],
          allowLoopback: true,
          cloudflareAccessOidc: { issuer: 'https://team.cloudflareaccess.com', providerId: 'idp-1', githubAccountIdClaim: 'github_id' },
          deviceAutoApprove: { enabled: true, scopes: ['operator.read'] },
        },
      },
    },
  },
};

/** Documents admission refuses for a field type; OpenClaw must refuse each of them as well. */
const auth = (extra: Record<string, unknown>) => ({ gateway: { mode: 'local', trustedProxies: PROXIES, auth: { mode: 'trusted-proxy', trustedProxy: TRUST, ...extra } } });
const REFUSED: Record<string, unknown> = {
  'an unknown rateLimit key': auth({ rateLimit: { perMinute: 30 } }),
  'an unknown trustedProxy key': auth({ trustedProxy: { ...TRUST, userHeaders: ['x'] } }),
  'an empty userHeader': auth({ trustedProxy: { userHeader: '' } }),
  'an unknown operator scope': auth({ identityScopes: { alice: ['operator.root'] } }),
  'identityScopes as a list': auth({ identityScopes: ['operator.read'] }),
  'a string maxAttempts': auth({ rateLimit: { maxAttempts: '5' } }),
  'a non-Cloudflare OIDC issuer': auth({ trustedProxy: { ...TRUST, cloudflareAccessOidc: { issuer: 'https://idp.example.com', providerId: 'p', githubAccountIdClaim: 'c' } } }),
};

describe("OpenClaw's config validate on admitted gateway.auth documents", () => {
  let host: TestHost;
  let count = 0;

  /** Writes the document on the host and runs the pinned OpenClaw's own validator on it. */
  async function validate(text: string) {
    const dir = `${DIR}/${++count}`;
    await host.run(['mkdir', '-p', `${dir}/home`, `${dir}/state`]);
    await host.run(['tee', `${dir}/openclaw.json`], { input: text });
    const env = [`HOME=${dir}/home`, `OPENCLAW_STATE_DIR=${dir}/state`, `OPENCLAW_CONFIG_PATH=${dir}/openclaw.json`, 'OPENCLAW_GATEWAY_PASSWORD=validate-only'];
    return host.exec(['env', ...env, host.nodePath, host.openclawPath, 'config', 'validate', '--json'], { timeoutMs: 120_000 });
  }

  before(async () => {
    host = await startTestHost({ name: 'ocvalid' });
  });
  after(async () => {
    await host?.down();
  });

  for (const [name, configuration] of Object.entries(ADMITTED)) {
    test(`admitted and valid for OpenClaw: ${name}`, async () => {
      const rendered = sshGatewayConfigurationDocument(configuration);
      const result = await validate(rendered.text);
      assert.equal(result.code, 0, `openclaw config validate refused the admitted document:\n${rendered.text}\n${result.stdout.slice(-1500)}${result.stderr.slice(-1500)}`);
      assert.match(result.stdout, /"valid"\s*:\s*true/);
    });
  }

  /** Starts the real gateway on the document last validated; it must exit at once with `reason`. */
  async function startRefused(reason: RegExp) {
    const dir = `${DIR}/${count}`;
    const env = [`HOME=${dir}/home`, `OPENCLAW_STATE_DIR=${dir}/state`, `OPENCLAW_CONFIG_PATH=${dir}/openclaw.json`, 'OPENCLAW_GATEWAY_PASSWORD=validate-only'];
    const started = await host.exec(['env', ...env, 'timeout', '150', host.nodePath, host.openclawPath, 'gateway', '--port', '18999'], { timeoutMs: 180_000 });
    assert.notEqual(started.code, 124, 'the gateway kept running');
    assert.notEqual(started.code, 0);
    assert.match(started.stdout + started.stderr, reason);
  }

  const RUNTIME_REFUSED: [string, Record<string, unknown>, RegExp][] = [
    ['gateway.mode "remote"', { gateway: { mode: 'remote' } }, /Gateway start blocked: set gateway\.mode=local/],
    [
      'an env default provider whose allowlist leaves the managed password out',
      { secrets: { providers: { default: { source: 'env', allowlist: ['MODEL_KEY'] } } } },
      /required secrets are unavailable/,
    ],
  ];
  for (const [name, extra, reason] of RUNTIME_REFUSED) {
    test(`${name}: refused by admission; OpenClaw's schema passes it but the gateway does not start`, async () => {
      const configuration = { ...extra, gateway: { mode: 'local', ...(extra.gateway as object), auth: { mode: 'password', password: { ...MANAGED_PASSWORD_REF } } } };
      assert.throws(
        () => sshGatewayConfigurationDocument(configuration),
        (error: Error & { code?: string }) => error.code === 'admission',
      );
      assert.equal((await validate(`${JSON.stringify(configuration)}\n`)).code, 0, 'the schema alone does not catch it');
      await startRefused(reason);
    });
  }

  for (const [name, configuration] of Object.entries(REFUSED)) {
    test(`refused by admission and by OpenClaw: ${name}`, async () => {
      assert.throws(
        () => sshGatewayConfigurationDocument(configuration),
        (error: Error & { code?: string }) => error.code === 'admission',
      );
      const result = await validate(`${JSON.stringify(configuration, null, 2)}\n`);
      assert.notEqual(result.code, 0, `OpenClaw accepted what admission refuses: ${name}\n${result.stdout.slice(-800)}`);
      assert.match(result.stdout + result.stderr, /gateway\.auth/);
    });
  }
});
