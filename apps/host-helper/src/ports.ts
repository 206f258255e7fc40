// Gateway port allocation: the lowest port of the range no Agent marker under the root holds.
import { agentHash, agentMarker, namespaceMarker, nsHash } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import type { OpContext } from './context.js';
import { readMarker } from './marker-io.js';
import { listDir, lstatOrNull, ownershipError } from './safe-read.js';

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
function usedPorts(ctx: OpContext, ownAgentDir?: string): Set<number> {
  const owners = new Map<number, string>();
  const namespaces = `${ctx.runtime.root}/namespaces`;
  for (const ns of listDir(namespaces)) {
    if (ns.startsWith('.')) continue;
    requireDirectory(`${namespaces}/${ns}`);
    const nsMarkerPath = `${namespaces}/${ns}/namespace.json`;
    const nsMarker = readMarker(nsMarkerPath, namespaceMarker);
    if (!nsMarker) throw ownershipError(nsMarkerPath, 'Namespace directory has no marker; cannot tell which ports it holds');
    if (nsHash(nsMarker.namespaceId) !== ns) throw ownershipError(nsMarkerPath, 'Namespace marker is stored under another Namespace\'s directory');
    for (const agent of listDir(`${namespaces}/${ns}/agents`)) {
      const dir = `${namespaces}/${ns}/agents/${agent}`;
      if (agent.startsWith('.') || dir === ownAgentDir) continue;
      requireDirectory(dir);
      const path = `${dir}/agent.json`;
      const marker = readMarker(path, agentMarker);
      if (!marker) throw ownershipError(path, 'Agent directory has no marker; cannot tell which port it holds');
      if (agentHash(marker.agentId) !== agent || marker.namespaceId !== nsMarker.namespaceId) {
        throw ownershipError(path, 'Agent marker is stored under another Agent\'s directory');
      }
      const other = owners.get(marker.port);
      if (other !== undefined) throw ownershipError(path, `records port ${marker.port}, which ${other} records too`);
      owners.set(marker.port, path);
    }
  }
  return new Set(owners.keys());
}

/** Security: a link or a file where the scan expects a directory is refused, never followed. */
function requireDirectory(path: string): void {
  if (!lstatOrNull(path)?.isDirectory()) throw ownershipError(path, 'expected a directory, found a link or a file');
}

export function allocatePort(ctx: OpContext, ownAgentDir?: string): number {
  const port = choosePort(usedPorts(ctx, ownAgentDir), ctx.runtime.gatewayPortRange);
  if (port === undefined) {
    const { start, end } = ctx.runtime.gatewayPortRange;
    throw new ComputeError('configuration', `no free gateway port left in ${start}-${end}`, { key: 'network.gatewayPortRange' });
  }
  return port;
}
