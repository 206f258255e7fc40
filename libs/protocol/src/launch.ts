// The launch environment hooks may add to a gateway unit: bounded, allowlisted, opaque.
import * as z from 'zod/mini';

/** Variables the driver itself sets in the unit; a hook may not shadow them. */
export const DRIVER_ENVIRONMENT = [
  'HOME',
  'OPENCLAW_STATE_DIR',
  'OPENCLAW_CONFIG_PATH',
  'OPENCLAW_GATEWAY_PORT',
  'OPENCLAW_GATEWAY_PASSWORD',
] as const;

/** Security: names that change how the process loads code are never accepted from a hook. */
const LOADER_NAMES = /^(?:LD_|NODE_|PATH$|SYSTEMD_|LISTEN_|NOTIFY_SOCKET$|INVOCATION_ID$)/;

export const LAUNCH_ENV_NAME_PATTERN = /^[A-Z_][A-Z0-9_]{0,127}$/;
/** Placeholders only: an `opaque-` prefix and plain token characters, so no secret or path fits. */
export const LAUNCH_ENV_VALUE_PATTERN = /^opaque-[A-Za-z0-9._~+/=:-]{1,500}$/;
export const MAX_LAUNCH_ENV_ENTRIES = 32;
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
    else if (LOADER_NAMES.test(name)) problems.push(`${name}: not allowed in a gateway environment`);
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

export type LaunchEnvironment = z.infer<typeof launchEnvironment>;
