// The launch environment hooks may add to a gateway unit: bounded, allowlisted, opaque.
import * as z from 'zod/mini';

/** Variables the driver itself sets in the unit; a hook may not shadow them. */
export const DRIVER_ENVIRONMENT = ['HOME', 'OPENCLAW_STATE_DIR', 'OPENCLAW_CONFIG_PATH', 'OPENCLAW_GATEWAY_PORT', 'OPENCLAW_GATEWAY_PASSWORD'] as const;

/**
 * Security: names the driver, OpenClaw, the loader or systemd owns are never accepted from a hook.
 * Every OPENCLAW_* is OpenClaw's (the admitted document owns logging, so no hook sets
 * OPENCLAW_LOG_LEVEL); NODE_*, LD_*, DYLD_*, BASH_ENV and ENV change what code runs; PATH, HOME,
 * TMPDIR, XDG_* and OTEL_* redirect files and telemetry; the rest are systemd's (systemd.exec(5),
 * "Environment Variables Set or Propagated by the Service Manager").
 */
const RESERVED_PREFIXES = /^(?:OPENCLAW_|NODE_|LD_|DYLD_|XDG_|OTEL_|SYSTEMD_|LISTEN_|WATCHDOG_|MONITOR_|TRIGGER_|MEMORY_PRESSURE_|LC_)/;
const RESERVED_NAMES = new Set([
  'PATH',
  'HOME',
  'TMPDIR',
  'BASH_ENV',
  'ENV',
  'LANG',
  'LANGUAGE',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'INVOCATION_ID',
  'NOTIFY_SOCKET',
  'MAINPID',
  'MANAGERPID',
  'JOURNAL_STREAM',
  'RUNTIME_DIRECTORY',
  'STATE_DIRECTORY',
  'CACHE_DIRECTORY',
  'LOGS_DIRECTORY',
  'CONFIGURATION_DIRECTORY',
  'CREDENTIALS_DIRECTORY',
  'SERVICE_RESULT',
  'EXIT_CODE',
  'EXIT_STATUS',
  'PIDFILE',
  'REMOTE_ADDR',
  'REMOTE_PORT',
  'FDSTORE',
]);

/** True for a name a hook may never set (the driver's own names included). */
export function isReservedLaunchName(name: string): boolean {
  return RESERVED_PREFIXES.test(name) || RESERVED_NAMES.has(name);
}

export const LAUNCH_ENV_NAME_PATTERN = /^[A-Z_][A-Z0-9_]{0,127}$/;
/** Placeholders only: an `opaque-` prefix and plain token characters (no quote, space, `$`, `%` or backslash). */
export const LAUNCH_ENV_VALUE_PATTERN = /^opaque-[A-Za-z0-9._~+/=:-]{1,500}$/;
/** OCC's bound on launch environment entries. */
export const MAX_LAUNCH_ENV_ENTRIES = 64;
export const MAX_LAUNCH_ENV_BYTES = 8192;

export function launchEnvironmentProblems(env: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const names = Object.keys(env);
  if (names.length > MAX_LAUNCH_ENV_ENTRIES) {
    problems.push(`at most ${MAX_LAUNCH_ENV_ENTRIES} variables are allowed, got ${names.length}`);
  }
  let bytes = 0;
  for (const name of names) {
    const value = env[name];
    const shown = LAUNCH_ENV_NAME_PATTERN.test(name) ? name : JSON.stringify(name.slice(0, 40));
    if (!LAUNCH_ENV_NAME_PATTERN.test(name)) problems.push(`${shown}: not a valid environment variable name`);
    else if ((DRIVER_ENVIRONMENT as readonly string[]).includes(name)) problems.push(`${name}: set by the driver itself`);
    else if (isReservedLaunchName(name)) problems.push(`${name}: reserved for the driver, OpenClaw, the loader or systemd`);
    if (typeof value !== 'string') problems.push(`${shown}: value must be a string`);
    else if (!LAUNCH_ENV_VALUE_PATTERN.test(value)) problems.push(`${shown}: value must be an opaque placeholder (opaque-<token>)`);
    bytes += Buffer.byteLength(name) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  }
  if (bytes > MAX_LAUNCH_ENV_BYTES) problems.push(`at most ${MAX_LAUNCH_ENV_BYTES} bytes are allowed, got ${bytes}`);
  return problems;
}

export const launchEnvironment = z.record(z.string(), z.string()).check(
  z.superRefine((env, ctx) => {
    for (const message of launchEnvironmentProblems(env)) ctx.addIssue({ code: 'custom', message, input: env });
  }),
);
