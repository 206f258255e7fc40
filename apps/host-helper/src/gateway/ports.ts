// Gateway port allocation: the lowest port of the range no Agent holds, from the port index while it
// describes the tree (gateway/port-index.ts), else from every Agent marker under the root.
import { agentEntries, namespaceEntries, namespaceLayout } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { hostTree } from '../fs/marker-io.js';
import { ownershipError } from '../fs/safe-read.js';
import { indexedPorts, segment, withAgent, type PortRecord } from './port-index.js';

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
function scannedPorts(ctx: OpContext, ownAgentDir?: string): PortRecord {
  const owners = new Map<number, string>();
  const ports: PortRecord = {};
  for (const ns of namespaceEntries(ctx.runtime.root, hostTree)) {
    if (!ns.marker) throw ownershipError(ns.layout.marker, 'Namespace directory has no marker; cannot tell which ports it holds');
    if (namespaceLayout(ctx.runtime.root, ns.marker.namespaceId).dir !== ns.layout.dir) {
      throw ownershipError(ns.layout.marker, "Namespace marker is stored under another Namespace's directory");
    }
    const agents: Record<string, number> = {};
    ports[segment(ns.layout.dir)] = agents;
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
      agents[segment(agent.dir)] = marker.port;
    }
  }
  return ports;
}

/** Every Agent's port on this host but the caller's own (see scannedPorts). */
export function hostPorts(ctx: OpContext, ownAgentDir?: string): PortRecord {
  const indexed = indexedPorts(ctx.runtime.root);
  if (!indexed) return scannedPorts(ctx, ownAgentDir);
  // Dropping the caller's own directory copies a Namespace's record, so only when the index lists it.
  const listed = ownAgentDir !== undefined && Object.hasOwn(indexed[segment(ownAgentDir, 3)] ?? {}, segment(ownAgentDir));
  return listed ? withAgent(indexed, ownAgentDir, null) : indexed;
}

export const portsIn = (ports: PortRecord): number[] => Object.values(ports).flatMap(Object.values);

/** A new Agent's port, and every Agent's port with it: what `record-ports` writes once its directory exists. */
export function allocatePort(ctx: OpContext, ownAgentDir: string): { port: number; ports: PortRecord } {
  const ports = hostPorts(ctx, ownAgentDir);
  const port = choosePort(new Set(portsIn(ports)), ctx.runtime.gatewayPortRange);
  if (port === undefined) {
    const { start, end } = ctx.runtime.gatewayPortRange;
    // Retryable: deleting an Agent or widening the range frees one, and the same call then succeeds.
    throw new ComputeError('capacity', `no free gateway port left in ${start}-${end} for another Agent`, { key: 'network.gatewayPortRange' });
  }
  return { port, ports: withAgent(ports, ownAgentDir, port) };
}
