// Per-gateway resource limits an Installation may set; the helper renders them into the gateway unit.
import * as z from 'zod/mini';

/**
 * Bounds of each limit. The lower ones keep a Node gateway able to start at all (the fixture gateway
 * alone holds about 50 MiB and a dozen threads); CPU weight is systemd's own range.
 */
export const GATEWAY_LIMIT_BOUNDS = {
  memoryMaxMiB: { min: 128, max: 1_048_576 },
  tasksMax: { min: 32, max: 65_536 },
  cpuWeight: { min: 1, max: 10_000 },
} as const;

type LimitName = keyof typeof GATEWAY_LIMIT_BOUNDS;

function bounded(name: LimitName) {
  const { min, max } = GATEWAY_LIMIT_BOUNDS[name];
  const reason = `expected an integer from ${min} to ${max}`;
  return z.optional(z.int(reason).check(z.minimum(min, reason), z.maximum(max, reason)));
}

export const gatewayLimits = z.strictObject({ memoryMaxMiB: bounded('memoryMaxMiB'), tasksMax: bounded('tasksMax'), cpuWeight: bounded('cpuWeight') });

export type GatewayLimits = z.infer<typeof gatewayLimits>;
