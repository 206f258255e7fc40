// What a host has left for gateways: memory, the disk under the root, Agents and free ports.
import { readFileSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ComputeError, type HostCapacity } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { hostPorts, portsIn } from './ports.js';

/**
 * What a new Agent needs free under the root before prepare creates it: its snapshot, a compile
 * cache (about 40 MB measured for the real gateway) and room for its state to start.
 */
export const NEW_AGENT_MIN_FREE_BYTES = 256 * 1024 * 1024;
export const NEW_AGENT_MIN_FREE_INODES = 1000;

/** MemTotal and MemAvailable from /proc/meminfo, in bytes; null when the file or a field is missing. */
function memory(): { total: number | null; available: number | null } {
  let text = '';
  try {
    text = readFileSync('/proc/meminfo', 'utf8');
  } catch {
    return { total: null, available: null };
  }
  const field = (name: string) => {
    const kib = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  };
  return { total: field('MemTotal'), available: field('MemAvailable') };
}

/** Free bytes (for unprivileged writers, as the gateways are) and inodes of the root's file system. */
export function rootFree(root: string): { bytes: number | null; inodes: number | null } {
  for (let path = root; ; path = dirname(path)) {
    try {
      const fs = statfsSync(path);
      return { bytes: fs.bavail * fs.bsize, inodes: fs.ffree };
    } catch {
      if (path === '/') return { bytes: null, inodes: null };
    }
  }
}

/** All but the account IDs left, which the probe adds (accounts/account-ids.ts, a room beside this one). */
export function hostCapacity(ctx: OpContext): Omit<HostCapacity, 'freeAccountIds'> {
  const { total, available } = memory();
  const free = rootFree(ctx.runtime.root);
  let agents: number | null = null;
  let freePorts: number | null = null;
  try {
    // One port per Agent marker; the scan refuses a tree it cannot vouch for, and the probe then reports no count.
    const used = portsIn(hostPorts(ctx));
    const { start, end } = ctx.runtime.gatewayPortRange;
    agents = used.length;
    freePorts = end - start + 1 - used.filter((port) => port >= start && port <= end).length;
  } catch (error) {
    if (!(error instanceof ComputeError)) throw error;
  }
  return { memoryTotalBytes: total, memoryAvailableBytes: available, rootFreeBytes: free.bytes, rootFreeInodes: free.inodes, agents, freePorts };
}

/** A retryable refusal when the disk under the root cannot take another Agent; checked before its first change. */
export function refuseFullDisk(ctx: OpContext): void {
  const { bytes, inodes } = rootFree(ctx.runtime.root);
  const mib = (n: number) => `${Math.floor(n / 1024 / 1024)} MiB`;
  if (bytes !== null && bytes < NEW_AGENT_MIN_FREE_BYTES) {
    throw new ComputeError('capacity', `the disk under ${ctx.runtime.root} has ${mib(bytes)} free, less than the ${mib(NEW_AGENT_MIN_FREE_BYTES)} a new Agent needs`, { path: ctx.runtime.root });
  }
  if (inodes !== null && inodes < NEW_AGENT_MIN_FREE_INODES) {
    throw new ComputeError('capacity', `the disk under ${ctx.runtime.root} has ${inodes} free inodes, fewer than the ${NEW_AGENT_MIN_FREE_INODES} a new Agent needs`, { path: ctx.runtime.root });
  }
}
