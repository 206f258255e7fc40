// The port index, `<root>/ports.json`: every Agent directory's gateway port, so that choosing a new
// Agent's port, and the probe's count, read one file instead of every Agent marker on the host.
// It is a copy, never the authority. Only the helper writes it, as root, under the lock, as the last
// change to the set of Agent directories in an operation (the `record-ports` step). It is trusted only
// while `namespaces/` and each `agents/` still have the change time and the entry names it recorded:
// a directory added, removed or renamed there since, by any helper version, changes both. Otherwise
// every marker is read, as before, and the next change writes the index again.
import { lstatSync } from 'node:fs';
import { namespaceLayoutAt, portIndex, rootLayout, treeEntries, type PortIndex } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import { removeFile } from '../fs/atomic-write.js';
import { hostTree, readMarker, writeMarker } from '../fs/marker-io.js';

/** Ports by Namespace directory name, then Agent directory name. Plain data: a plan step carries it. */
export type PortRecord = Record<string, Record<string, number>>;

/** A directory's change time in nanoseconds, or null when it is absent. */
function changeTime(dir: string): string | null {
  const stat = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
  return stat ? String(stat.ctimeNs) : null;
}

const names = (dir: string) => treeEntries(hostTree, dir);
const sameNames = (listed: readonly string[], recorded: object) => listed.length === Object.keys(recorded).length && listed.every((name) => Object.hasOwn(recorded, name));

/** The ports the index records, when it still describes the tree; null when it is absent, unreadable or out of date. */
export function indexedPorts(root: string): PortRecord | null {
  const layout = rootLayout(root);
  let index: PortIndex | null;
  try {
    index = readMarker(layout.ports, portIndex);
  } catch (error) {
    if (error instanceof ComputeError) return null;
    throw error;
  }
  if (!index || changeTime(layout.namespaces) !== index.changed || !sameNames(names(layout.namespaces), index.namespaces)) return null;
  const ports: PortRecord = {};
  for (const [name, ns] of Object.entries(index.namespaces)) {
    const agents = namespaceLayoutAt(root, name).agents;
    if (typeof ns.agents !== 'object' || ns.agents === null || changeTime(agents) !== ns.changed || !sameNames(names(agents), ns.agents)) return null;
    ports[name] = ns.agents as Record<string, number>;
  }
  const all = Object.values(ports).flatMap(Object.values);
  return new Set(all).size === all.length && all.every((port) => Number.isInteger(port) && port > 0 && port < 65536) ? ports : null;
}

/** Applies `record-ports`: the index for `ports`, or none when the tree does not hold exactly those directories. */
export function recordPorts(root: string, ports: PortRecord): void {
  const layout = rootLayout(root);
  const index: PortIndex = { kind: 'ports', version: 1, driver: 'compute-ssh', changed: changeTime(layout.namespaces), namespaces: {} };
  let holds = sameNames(names(layout.namespaces), ports);
  for (const [name, agents] of Object.entries(ports)) {
    const dir = namespaceLayoutAt(root, name).agents;
    holds &&= sameNames(names(dir), agents);
    index.namespaces[name] = { changed: changeTime(dir), agents };
  }
  // A plan that did not leave what it expected (a bug, never an Agent's doing) leaves no index to trust.
  if (holds) writeMarker(layout.ports, index);
  else removeFile(layout.ports);
}

/** The `from`-th last name of a path: 1 its own, 3 its Namespace's for an Agent directory. */
export const segment = (path: string, from = 1) => path.split('/').at(-from)!;

/** `ports` with the Agent at `agentDir` (`<root>/namespaces/<ns>/agents/<agent>`) on `port`, or without it. */
export function withAgent(ports: PortRecord, agentDir: string, port: number | null): PortRecord {
  const [ns, name] = [segment(agentDir, 3), segment(agentDir)];
  // Copied key by key, not spread: V8 spreads an object of a thousand keys into a new shape per key,
  // which took 8 ms of the lock hold of a prepare on a host with 1,000 Agents; this takes about one.
  const agents: Record<string, number> = {};
  for (const [other, held] of Object.entries(ports[ns] ?? {})) if (other !== name) agents[other] = held;
  if (port !== null) agents[name] = port;
  return { ...ports, [ns]: agents };
}

/** `ports` with the Namespace at `dir` holding no Agent, or without it. */
export function withNamespace(ports: PortRecord, dir: string, present: boolean): PortRecord {
  const { [segment(dir)]: _gone, ...others } = ports;
  return present ? { ...others, [segment(dir)]: {} } : others;
}
