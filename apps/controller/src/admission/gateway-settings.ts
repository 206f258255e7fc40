// Settings with which the gateway would not start or not answer the driver's plain-HTTP loopback
// readiness check, refused at admission so that they never surface after OCC's commit.
// OCC's SSH Compute reference refuses TLS and the retired approval policy before backend work; the
// others come from an audit of OpenClaw 2026.9.6 (the version the test hosts carry), each proven
// in gateway-settings.e2e.test.ts by the real gateway in the driver's own unit never answering /readyz.

/** A setting admission refuses: its key path in the document and why. */
export interface SettingProblem {
  key: string;
  reason: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path`, or undefined where any step is missing or not an object. */
function at(document: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = document;
  for (const step of path) value = isPlainObject(value) ? value[step] : undefined;
  return value;
}

/**
 * `gateway.tls.enabled` must be omitted or false: with TLS the listener speaks only HTTPS, and the
 * readiness check and same-host clients reach it over plain HTTP on loopback.
 */
function tlsProblem(document: Record<string, unknown>): SettingProblem | undefined {
  const tls = at(document, ['gateway', 'tls']);
  if (tls === undefined) return undefined;
  if (!isPlainObject(tls)) return { key: 'gateway.tls', reason: 'expected an object' };
  if (tls.enabled === undefined || tls.enabled === false) return undefined;
  const reason = tls.enabled === true ? 'must be omitted or false: the gateway must serve plain HTTP for its loopback readiness check' : 'expected a boolean (false or omitted)';
  return { key: 'gateway.tls.enabled', reason };
}

const APPROVAL_POLICY = ['plugins', 'entries', 'codex', 'config', 'appServer', 'approvalPolicy'] as const;

/** OpenClaw retired the Codex approval policy "untrusted". */
function approvalPolicyProblem(document: Record<string, unknown>): SettingProblem | undefined {
  if (at(document, APPROVAL_POLICY) !== 'untrusted') return undefined;
  return { key: APPROVAL_POLICY.join('.'), reason: '"untrusted" is retired by OpenClaw; choose another Codex approval policy or remove it' };
}

/**
 * The keys OpenClaw 2026.9.6 knows under `gateway` (src/config/zod-schema.gateway.ts, a strict
 * object): with any other key the whole configuration is invalid and the gateway exits at start
 * (status 78, "Unrecognized key"), so it would never answer readiness.
 */
const GATEWAY_KEYS = new Set(
  'port mode bind customBindHost publicOrigin portals controlUi cliAgents terminal auth roles trustedProxies allowRealIpFallback tools tailscale remote reload tls http push nodes'.split(' '),
);

function unknownKeyProblem(document: Record<string, unknown>): SettingProblem | undefined {
  const gateway = at(document, ['gateway']);
  const unknown = isPlainObject(gateway) ? Object.keys(gateway).find((key) => !GATEWAY_KEYS.has(key)) : undefined;
  if (unknown === undefined) return undefined;
  return { key: `gateway.${unknown.slice(0, 64)}`, reason: 'is not a gateway setting OpenClaw knows; with it the gateway refuses its configuration and does not start' };
}

/** The bind modes OpenClaw's gateway command accepts. */
const BIND_MODES = new Set(['auto', 'lan', 'loopback', 'custom', 'tailnet']);
/**
 * Host aliases OpenClaw treats as legacy configuration (`0.0.0.0`, `localhost`, ...): it starts only
 * after rewriting the file, and the gateway cannot write its read-only snapshot (status 78).
 */
const LEGACY_BIND_ALIASES = new Set(['0.0.0.0', '::', '[::]', '*', '127.0.0.1', 'localhost', '::1', '[::1]']);
/** OpenClaw's canonical dotted-decimal IPv4 (no leading zeros, no shorthand), the only form `custom` binds. */
const DOTTED_IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * `gateway.bind` must be a mode, and `custom` needs one IPv4
 * address in `customBindHost`: otherwise the gateway exits at start. Every listener keeps 127.0.0.1
 * on the port (a specific address adds it), so each admitted bind answers loopback readiness.
 */
function bindProblem(document: Record<string, unknown>): SettingProblem | undefined {
  const bind = at(document, ['gateway', 'bind']);
  if (bind === undefined) return undefined;
  if (typeof bind === 'string' && LEGACY_BIND_ALIASES.has(bind.trim().toLowerCase())) {
    return {
      key: 'gateway.bind',
      reason: 'is a legacy host alias OpenClaw starts with only after rewriting the configuration, which the gateway cannot do to its snapshot; use a bind mode ("loopback", "lan", ...)',
    };
  }
  if (typeof bind !== 'string' || !BIND_MODES.has(bind)) return { key: 'gateway.bind', reason: 'expected one of "loopback", "lan", "tailnet", "auto", "custom"' };
  if (bind !== 'custom') return undefined;
  const host = at(document, ['gateway', 'customBindHost']);
  if (typeof host === 'string' && DOTTED_IPV4.test(host.trim())) return undefined;
  return { key: 'gateway.customBindHost', reason: 'bind "custom" needs one IPv4 address in dotted-decimal form here; the gateway does not start without it' };
}

/**
 * `gateway.tailscale.mode` serve or funnel makes the start depend on a Tailscale route the gateway
 * claims through the host's `tailscale` CLI; without an active route (or the CLI) it exits at start.
 */
function tailscaleProblem(document: Record<string, unknown>): SettingProblem | undefined {
  const tailscale = at(document, ['gateway', 'tailscale']);
  if (tailscale === undefined) return undefined;
  if (!isPlainObject(tailscale)) return { key: 'gateway.tailscale', reason: 'expected an object' };
  // Retired keys (resetOnExit, serviceName) are legacy configuration OpenClaw must rewrite first, as above.
  const unknown = Object.keys(tailscale).find((key) => key !== 'mode' && key !== 'preserveFunnel');
  if (unknown !== undefined) return { key: `gateway.tailscale.${unknown.slice(0, 64)}`, reason: 'is not a Tailscale setting OpenClaw 2026.9.6 starts with (only mode and preserveFunnel)' };
  const mode = at(document, ['gateway', 'tailscale', 'mode']);
  if (mode === undefined || mode === 'off') return undefined;
  const reason =
    mode === 'serve' || mode === 'funnel'
      ? 'Tailscale exposure is not supported by SSH Compute: the gateway does not start without an active Tailscale route; remove it or set "off"'
      : 'expected "off" (or omitted)';
  return { key: 'gateway.tailscale.mode', reason };
}

/**
 * Trusted-proxy mode with no `gateway.trustedProxies` entry: the gateway exits at start (status 78).
 * Checked by document.ts once the trusted-proxy auth fields are admitted.
 */
export function trustedProxiesProblem(gateway: Record<string, unknown>): SettingProblem | undefined {
  const proxies = gateway.trustedProxies;
  if (Array.isArray(proxies) && proxies.length > 0 && proxies.every((entry) => typeof entry === 'string')) return undefined;
  return { key: 'gateway.trustedProxies', reason: 'trusted-proxy mode needs at least one proxy address here; the gateway does not start without one' };
}

/** The first refused gateway setting of a document, if any; never echoes a value. */
export function gatewaySettingProblem(document: Record<string, unknown>): SettingProblem | undefined {
  return unknownKeyProblem(document) ?? bindProblem(document) ?? tailscaleProblem(document) ?? tlsProblem(document) ?? approvalPolicyProblem(document);
}
