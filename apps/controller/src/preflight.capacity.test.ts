// capacityWarnings: a probed host low on memory, disk, inodes, ports or account IDs is a warning with a stable code, never a failure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HostCapacity, ProbeResult } from '@occ-ssh/protocol';
import { CAPACITY_WARNING_CODES, CAPACITY_WARNING_FLOORS, capacityWarnings, missingOnHost } from './preflight.js';

const GIB = 1024 * 1024 * 1024;
const ROOMY: HostCapacity = { memoryTotalBytes: 16 * GIB, memoryAvailableBytes: 8 * GIB, rootFreeBytes: 100 * GIB, rootFreeInodes: 5_000_000, agents: 4, freePorts: 96, freeAccountIds: 880 };
const probe = (capacity: Partial<HostCapacity>): ProbeResult => ({
  checks: [{ name: 'systemctl', ok: true }],
  nodeVersion: 'v24.1.0',
  hostname: 'h',
  socketBindMissing: [],
  ipAddressDenyMissing: [],
  capacity: { ...ROOMY, ...capacity },
});
const codes = (capacity: Partial<HostCapacity>) => capacityWarnings('stable', '203.0.113.10', probe(capacity)).map((warning) => warning.code);

describe('capacityWarnings', () => {
  it('says nothing for a roomy host, nor for figures the host could not read', () => {
    assert.deepEqual(codes({}), []);
    assert.deepEqual(codes({ memoryAvailableBytes: null, rootFreeBytes: null, rootFreeInodes: null, agents: null, freePorts: null, freeAccountIds: null }), []);
  });

  it('warns for each low figure with its own code, naming the host, its address and the figure', () => {
    const low = { memoryAvailableBytes: 512 * 1024 * 1024, rootFreeBytes: GIB, rootFreeInodes: 900, freePorts: 0, freeAccountIds: 0 };
    const warnings = capacityWarnings('stable', '203.0.113.10', probe(low));
    assert.deepEqual(
      warnings.map((warning) => warning.code),
      ['HOST_MEMORY_LOW', 'HOST_DISK_LOW', 'HOST_INODES_LOW', 'GATEWAY_PORTS_EXHAUSTED', 'AGENT_ACCOUNTS_EXHAUSTED'],
    );
    for (const warning of warnings) {
      assert.deepEqual(Object.keys(warning).sort(), ['code', 'message'], "exactly OCC's ComputePreflightWarning");
      assert.match(warning.message, /^host "stable" \(203\.0\.113\.10\) has /);
    }
    assert.match(warnings[0]!.message, /512 MiB of memory available, less than the 1536 MiB/);
    assert.match(warnings[1]!.message, /1024 MiB free on the disk under the root/);
    assert.match(warnings[2]!.message, /900 free inodes/);
    assert.match(warnings[3]!.message, /no free port left .*\(4 Agents\): prepare refuses a new Agent there/);
    assert.match(warnings[4]!.message, /no free UID or GID left for another Agent account \(4 Agents\): prepare refuses a new Agent there; runtime.accountIdRange/);
    assert.equal(missingOnHost('stable', '203.0.113.10', probe(low)), undefined, 'never a failure');
  });

  it('warns only below each floor', () => {
    const floors = CAPACITY_WARNING_FLOORS;
    assert.deepEqual(codes({ memoryAvailableBytes: floors.memoryAvailableBytes, rootFreeBytes: floors.rootFreeBytes, rootFreeInodes: floors.rootFreeInodes, freePorts: 1 }), []);
    assert.deepEqual(codes({ memoryAvailableBytes: floors.memoryAvailableBytes - 1 }), [CAPACITY_WARNING_CODES.memory]);
    assert.deepEqual(codes({ rootFreeInodes: floors.rootFreeInodes - 1 }), [CAPACITY_WARNING_CODES.inodes]);
  });
});
