// Gateway port allocation: the lowest port of the range no Agent marker under the root holds.
import { agentMarker } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import type { OpContext } from './context.js';
import { listDir } from './fsx.js';
import { readMarker } from './marker-io.js';

export function choosePort(used: ReadonlySet<number>, range: { start: number; end: number }): number | undefined {
  for (let port = range.start; port <= range.end; port += 1) if (!used.has(port)) return port;
  return undefined;
}

/** Every port recorded by any Agent marker on this host, across all Namespaces. */
export function usedPorts(ctx: OpContext): Set<number> {
  const used = new Set<number>();
  const namespaces = `${ctx.runtime.root}/namespaces`;
  for (const ns of listDir(namespaces)) {
    if (ns.startsWith('.')) continue;
    for (const agent of listDir(`${namespaces}/${ns}/agents`)) {
      if (agent.startsWith('.')) continue;
      const marker = readMarker(`${namespaces}/${ns}/agents/${agent}/agent.json`, agentMarker);
      if (marker) used.add(marker.port);
    }
  }
  return used;
}

export function allocatePort(ctx: OpContext): number {
  const port = choosePort(usedPorts(ctx), ctx.runtime.gatewayPortRange);
  if (port === undefined) {
    const { start, end } = ctx.runtime.gatewayPortRange;
    throw new ComputeError('configuration', `no free gateway port left in ${start}-${end}`, { key: 'network.gatewayPortRange' });
  }
  return port;
}
