// probe: read-only check that a host has what the driver needs. Takes no lock.
import * as z from 'zod/mini';
import { defineOperation } from './define.js';

const probeCheck = z.strictObject({ name: z.string(), ok: z.boolean(), detail: z.optional(z.string()) });

const probeResult = z.strictObject({
  checks: z.array(probeCheck),
  nodeVersion: z.string(),
  hostname: z.string(),
  /**
   * What keeps systemd on this host from enforcing the gateway units' SocketBindAllow=/SocketBindDeny=
   * (no BPF framework, no unified cgroup v2 hierarchy, no kernel cgroup BPF); empty when it can.
   * Not a failure: preflight turns it into a warning.
   */
  socketBindMissing: z.array(z.string()),
});

export type ProbeResult = z.infer<typeof probeResult>;

export const probeOperation = defineOperation({
  args: z.strictObject({}),
  result: probeResult,
  mutates: false,
  example: {
    args: {},
    result: { checks: [{ name: 'systemctl', ok: true }], nodeVersion: 'v24.1.0', hostname: 'stable-host', socketBindMissing: [] },
  },
});
