// probe: read-only check that a host has what the driver needs. Takes no lock.
import * as z from 'zod/mini';

export const probeArgs = z.strictObject({});

export const probeCheck = z.strictObject({ name: z.string(), ok: z.boolean(), detail: z.optional(z.string()) });

export const probeResult = z.strictObject({
  checks: z.array(probeCheck),
  nodeVersion: z.string(),
  hostname: z.string(),
});

export type ProbeResult = z.infer<typeof probeResult>;
