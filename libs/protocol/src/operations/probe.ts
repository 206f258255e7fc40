// probe: read-only check that a host has what the driver needs. Takes no lock.
import * as z from 'zod/mini';
import { lazyOperation, type OperationExample } from './define.js';

/**
 * What the host has left for gateways; null where it could not be read (no /proc/meminfo, a tree
 * the port scan refuses). The disk figures are of the file system holding the root, or its nearest
 * existing parent before the first Namespace.
 */
function capacity() {
  const count = z.nullable(z.int().check(z.minimum(0)));
  return z.strictObject({
    memoryTotalBytes: count,
    memoryAvailableBytes: count,
    rootFreeBytes: count,
    rootFreeInodes: count,
    agents: count,
    freePorts: count,
    /** How many more Agent accounts the host can make: free UIDs (and GIDs) in the range accounts are made in. */
    freeAccountIds: count,
  });
}

function probeResult() {
  return z.strictObject({
    checks: z.array(z.strictObject({ name: z.string(), ok: z.boolean(), detail: z.optional(z.string()) })),
    nodeVersion: z.string(),
    hostname: z.string(),
    /**
     * What keeps systemd on this host from enforcing the gateway units' SocketBindAllow=/SocketBindDeny=
     * (no BPF framework, no unified cgroup v2 hierarchy, no kernel cgroup BPF); empty when it can.
     * Not a failure: preflight turns it into a warning.
     */
    socketBindMissing: z.array(z.string()),
    /** What keeps it from enforcing their link-local IPAddressDeny= (no unified cgroup v2 hierarchy, no kernel cgroup BPF); empty when it can. */
    ipAddressDenyMissing: z.array(z.string()),
    capacity: capacity(),
  });
}

const EXAMPLE_CAPACITY = {
  memoryTotalBytes: 8_589_934_592,
  memoryAvailableBytes: 6_442_450_944,
  rootFreeBytes: 42_949_672_960,
  rootFreeInodes: 2_500_000,
  agents: 3,
  freePorts: 97,
  freeAccountIds: 893,
};

export const probeOperation = lazyOperation(false, () => ({ args: z.strictObject({}), result: probeResult() }));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const probeExample = (): OperationExample<typeof probeOperation> => ({
  args: {},
  result: { checks: [{ name: 'systemctl', ok: true }], nodeVersion: 'v24.1.0', hostname: 'stable-host', socketBindMissing: [], ipAddressDenyMissing: [], capacity: EXAMPLE_CAPACITY },
});

export type ProbeResult = z.infer<(typeof probeOperation)['result']>;
export type HostCapacity = ProbeResult['capacity'];
