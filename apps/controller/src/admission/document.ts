// Admission and rendering of the native OpenClaw document (openclaw.json) for SSH Compute.
import { canonicalJson, sha256Hex } from '@occ-ssh/markers';
import { ComputeError, MAX_DOCUMENT_BYTES, type GatewayAuthMode } from '@occ-ssh/protocol';
import { gatewayAuthFieldProblem, GATEWAY_AUTH_FIELDS } from './gateway-auth.js';
import { gatewaySettingProblem, trustedProxiesProblem } from './gateway-settings.js';

/** The only password source SSH Compute supports: the managed per-Agent environment variable. */
export const MANAGED_PASSWORD_REF = Object.freeze({ source: 'env', provider: 'default', id: 'OPENCLAW_GATEWAY_PASSWORD' });

const AUTH_FIELDS = new Set(['mode', 'password', 'allowTailscale', 'trustedProxy', 'identityScopes', 'rateLimit']);
const TRUSTED_PROXY_ONLY = ['trustedProxy', 'identityScopes'];

/**
 * OpenClaw reads a `${NAME}` or `$NAME` string where a SecretRef may stand as the env SecretRef of
 * NAME (parseEnvTemplateSecretRef); these two spell the managed ref, which is rendered instead.
 */
const MANAGED_PASSWORD_TEMPLATES = new Set(['${OPENCLAW_GATEWAY_PASSWORD}', '$OPENCLAW_GATEWAY_PASSWORD']);

export interface RenderedDocument {
  /** The exact bytes written as the snapshot's openclaw.json. */
  text: string;
  hash: string;
  auth: GatewayAuthMode;
}

function refuse(key: string, reason: string): never {
  throw new ComputeError('admission', `configuration.${key}: ${reason}`, { key: `configuration.${key}` });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

function isManagedRef(value: unknown): boolean {
  if (typeof value === 'string') return MANAGED_PASSWORD_TEMPLATES.has(value);
  return isPlainObject(value) && Object.keys(value).length === 3 && canonicalJson(value) === canonicalJson(MANAGED_PASSWORD_REF);
}

/** Every field OpenClaw types, checked with OpenClaw's own rules (gateway-auth.ts). */
function admitAuthFields(auth: Record<string, unknown>): void {
  for (const key of Object.keys(auth)) {
    if (!AUTH_FIELDS.has(key)) refuse(`gateway.auth.${key}`, 'is not supported by SSH Compute');
  }
  if (auth.mode !== undefined && typeof auth.mode !== 'string') refuse('gateway.auth.mode', 'expected a string');
  // OpenClaw's default for password and trusted-proxy modes is false; true adds a Tailscale
  // identity path around the managed password and the configured proxy trust.
  if (auth.allowTailscale !== undefined && auth.allowTailscale !== false) {
    refuse('gateway.auth.allowTailscale', typeof auth.allowTailscale === 'boolean' ? 'Tailscale identity auth is not supported by SSH Compute; remove it or set false' : 'expected a boolean');
  }
  for (const field of Object.keys(GATEWAY_AUTH_FIELDS) as (keyof typeof GATEWAY_AUTH_FIELDS)[]) {
    if (auth[field] === undefined) continue;
    const problem = gatewayAuthFieldProblem(field, auth[field]);
    if (problem) refuse(['gateway.auth', field, problem.path].filter(Boolean).join('.'), problem.reason);
  }
}

/**
 * The managed ref names provider alias "default". When the document configures that alias as an
 * env provider with an allowlist leaving OPENCLAW_GATEWAY_PASSWORD out, the gateway exits at start
 * ("required secrets are unavailable"). Another source under that alias is left alone: OpenClaw
 * then resolves the ref with its built-in env provider, and the gateway starts.
 */
function admitManagedPasswordProvider(document: Record<string, unknown>): void {
  const secrets = document.secrets;
  const providers = isPlainObject(secrets) ? secrets.providers : undefined;
  const provider = isPlainObject(providers) ? providers.default : undefined;
  if (!isPlainObject(provider) || provider.source !== 'env' || provider.allowlist === undefined) return;
  const allowlist = provider.allowlist;
  if (!(Array.isArray(allowlist) && allowlist.includes(MANAGED_PASSWORD_REF.id))) {
    refuse('secrets.providers.default.allowlist', `must include ${MANAGED_PASSWORD_REF.id}, the managed gateway password`);
  }
}

/**
 * Admits only supported `gateway.auth` fields and modes, each with OpenClaw's own type, and no
 * setting with which the gateway would not start or answer readiness (gateway-settings.ts), then
 * renders the snapshot: omitted mode becomes password mode with the managed env SecretRef; an
 * explicit password must be that ref (or OpenClaw's `${OPENCLAW_GATEWAY_PASSWORD}` spelling of
 * it); trusted-proxy keeps its configured trust and may opt into the same loopback password.
 */
export function sshGatewayConfigurationDocument(configuration: unknown): RenderedDocument {
  if (!isPlainObject(configuration)) refuse('', 'expected a JSON object');
  const document = structuredClone(configuration) as Record<string, unknown>;
  const gateway = document.gateway ?? {};
  if (!isPlainObject(gateway)) refuse('gateway', 'expected an object');
  if ('port' in gateway) refuse('gateway.port', 'is assigned per Agent by the driver; remove it');
  // OpenClaw blocks `gateway` from starting unless gateway.mode is "local" ("Gateway start blocked").
  if (gateway.mode !== undefined && gateway.mode !== 'local') refuse('gateway.mode', 'must be "local" (or omitted): OpenClaw starts no gateway in any other mode');
  const setting = gatewaySettingProblem(document);
  if (setting) refuse(setting.key, setting.reason);
  const auth = gateway.auth ?? {};
  if (!isPlainObject(auth)) refuse('gateway.auth', 'expected an object');
  admitAuthFields(auth);
  const mode = auth.mode ?? 'password';
  let authMode: GatewayAuthMode;
  if (mode === 'password') {
    for (const key of TRUSTED_PROXY_ONLY) if (key in auth) refuse(`gateway.auth.${key}`, 'applies only to trusted-proxy mode');
    if (auth.password !== undefined && !isManagedRef(auth.password)) {
      refuse('gateway.auth.password', 'must be the env SecretRef {source:"env",provider:"default",id:"OPENCLAW_GATEWAY_PASSWORD"}');
    }
    auth.mode = 'password';
    auth.password = { ...MANAGED_PASSWORD_REF };
    authMode = 'password';
  } else if (mode === 'trusted-proxy') {
    if (auth.trustedProxy === undefined) refuse('gateway.auth.trustedProxy.userHeader', 'trusted-proxy mode needs a userHeader');
    if (auth.password !== undefined && !isManagedRef(auth.password)) {
      refuse('gateway.auth.password', 'in trusted-proxy mode may only opt into the managed env SecretRef');
    }
    const proxies = trustedProxiesProblem(gateway);
    if (proxies) refuse(proxies.key, proxies.reason);
    if (auth.password !== undefined) auth.password = { ...MANAGED_PASSWORD_REF };
    authMode = auth.password === undefined ? 'trusted-proxy' : 'trusted-proxy-password';
  } else {
    refuse('gateway.auth.mode', `"${String(mode).slice(0, 40)}" is not supported by SSH Compute; use password or trusted-proxy`);
  }
  if (authMode !== 'trusted-proxy') admitManagedPasswordProvider(document);
  gateway.auth = auth;
  gateway.mode = 'local';
  // Security: OpenClaw binds 0.0.0.0 when it takes the host for a container (/.dockerenv, an LXC
  // cgroup) and no bind is set; an omitted bind is rendered as loopback, so the default stays local.
  if (gateway.bind === undefined) gateway.bind = 'loopback';
  document.gateway = gateway;

  const text = `${JSON.stringify(JSON.parse(canonicalJson(document)), null, 2)}\n`;
  if (Buffer.byteLength(text) > MAX_DOCUMENT_BYTES) refuse('', `rendered document exceeds ${MAX_DOCUMENT_BYTES} bytes`);
  return { text, hash: sha256Hex(text), auth: authMode };
}
