// Gateway port allocation: the lowest port of the range no Agent marker under the root holds.
import { agentEntries, namespaceEntries, namespaceLayout } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { hostTree } from '../fs/marker-io.js';
import { ownershipError } from '../fs/safe-read.js';

function choosePort(used: ReadonlySet<number>, range: { start: number; end: number }): number | undefined {
  for (let port = range.start; port <= range.end; port += 1) if (!used.has(port)) return port;
  return undefined;
}

/**
 * Every port recorded by any Agent marker on this host, across all Namespaces. Security: the scan
 * fails closed: a directory whose marker is missing, or two Agents on one port, would otherwise
 * hand out a port that a gateway may already hold. `ownAgentDir` is the caller's own Agent
 * directory, which may exist without its marker while it is being prepared.
 */
export function usedPorts(ctx: OpContext, ownAgentDir?: string): Set<number> {
  const owners = new Map<number, string>();
  for (const ns of namespaceEntries(ctx.runtime.root, hostTree)) {
    if (!ns.marker) throw ownershipError(ns.layout.marker, 'Namespace directory has no marker; cannot tell which ports it holds');
    if (namespaceLayout(ctx.runtime.root, ns.marker.namespaceId).dir !== ns.layout.dir) {
      throw ownershipError(ns.layout.marker, "Namespace marker is stored under another Namespace's directory");
    }
    for (const agent of agentEntries(ctx.runtime.root, ctx.runtime.systemdUnitDirectory, ns.layout.agents, hostTree)) {
      if (agent.dir === ownAgentDir) continue;
      const { marker, markerPath: path } = agent;
      if (!marker) throw ownershipError(path, 'Agent directory has no marker; cannot tell which port it holds');
      if (agent.layout?.dir !== agent.dir || marker.namespaceId !== ns.marker.namespaceId) {
        throw ownershipError(path, "Agent marker is stored under another Agent's directory");
      }
      const other = owners.get(marker.port);
      if (other !== undefined) throw ownershipError(path, `records port ${marker.port}, which ${other} records too`);
      owners.set(marker.port, path);
    }
  }
  return new Set(owners.keys());
}

export function allocatePort(ctx: OpContext, ownAgentDir?: string): number {
  const port = choosePort(usedPorts(ctx, ownAgentDir), ctx.runtime.gatewayPortRange);
  if (port === undefined) {
    const { start, end } = ctx.runtime.gatewayPortRange;
    // Retryable: deleting an Agent or widening the range frees one, and the same call then succeeds.
    throw new ComputeError('capacity', `no free gateway port left in ${start}-${end} for another Agent`, { key: 'network.gatewayPortRange' });
  }
  return port;
}
