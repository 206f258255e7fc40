// A structured reading of a Listing: Namespaces, Agents, revisions, accounts and units as the
// helper lays them out. Pure; the invariant checker and the convergence expectations share it.
import {
  accountMarker,
  agentMarker,
  namespaceMarker,
  removalMarker,
  removalOfMarkerFile,
  revisionMarker,
  servedMarker,
  type AccountMarker,
  type AgentMarker,
  type NamespaceMarker,
  type RevisionMarker,
  type ServedMarker,
} from '@occ-ssh/markers';
import type * as z from 'zod/mini';
import type { Entry, Listing, UnitInfo } from '../host/listing.js';

export interface Parsed<T> {
  entry: Entry;
  marker: T | null;
  /** Why the marker did not parse; null when it did. */
  problem: string | null;
}

interface RevisionModel {
  dirName: string;
  dir: Entry;
  marker: Parsed<RevisionMarker> | null;
  config: Entry | null;
}

export interface AgentModel {
  nsDir: string;
  dirName: string;
  dir: Entry;
  marker: Parsed<AgentMarker> | null;
  home: Entry | null;
  state: Entry | null;
  password: Entry | null;
  current: Entry | null;
  served: Parsed<ServedMarker> | null;
  revisions: Map<string, RevisionModel>;
  /** Names directly in the Agent directory. */
  names: string[];
}

interface NamespaceModel {
  dirName: string;
  marker: Parsed<NamespaceMarker> | null;
  agents: Map<string, AgentModel>;
}

export interface HostModel {
  namespaces: Map<string, NamespaceModel>;
  /** `.deleting-*` directories under namespaces/ (a Namespace) or a Namespace's agents/ (an Agent): a removal that has not finished yet. */
  deleting: string[];
  /** Trees and markers in the removal area (`.removing/`): a deletion whose removal has not finished, with whose it was when its marker says. */
  removals: { path: string; namespaceId?: string; agentId?: string }[];
  accounts: Map<string, Parsed<AccountMarker>>;
  units: Map<string, UnitInfo>;
  temps: string[];
  byPath: Map<string, Entry>;
}

function parse<S extends z.ZodMiniType>(entry: Entry, schema: S): Parsed<z.infer<S>> {
  if (entry.type !== 'file') return { entry, marker: null, problem: `is a ${entry.type}, not a file` };
  if (entry.text === undefined) return { entry, marker: null, problem: 'could not be read' };
  let value: unknown;
  try {
    value = JSON.parse(entry.text);
  } catch {
    return { entry, marker: null, problem: 'is not JSON' };
  }
  const checked = schema.safeParse(value);
  return checked.success ? { entry, marker: checked.data as z.infer<S>, problem: null } : { entry, marker: null, problem: 'does not match its marker schema' };
}

export function buildModel(listing: Listing): HostModel {
  const byPath = new Map(listing.entries.map((entry) => [entry.path, entry]));
  const children = new Map<string, string[]>();
  for (const entry of listing.entries) {
    const at = entry.path.lastIndexOf('/');
    const parent = at === -1 ? '' : entry.path.slice(0, at);
    const list = children.get(parent) ?? [];
    list.push(entry.path.slice(at + 1));
    children.set(parent, list);
  }
  const childrenOf = (path: string) => children.get(path) ?? [];
  const at = (path: string) => byPath.get(path) ?? null;

  const namespaces = new Map<string, NamespaceModel>();
  const deleting: string[] = [];
  for (const nsDir of childrenOf('namespaces')) {
    if (nsDir.startsWith('.deleting-')) {
      deleting.push(nsDir);
      continue;
    }
    if (nsDir.startsWith('.')) continue;
    const base = `namespaces/${nsDir}`;
    const markerEntry = at(`${base}/namespace.json`);
    const agents = new Map<string, AgentModel>();
    for (const agentDir of childrenOf(`${base}/agents`)) {
      if (agentDir.startsWith('.deleting-')) deleting.push(`${nsDir}/agents/${agentDir}`);
      if (agentDir.startsWith('.')) continue;
      const dir = `${base}/agents/${agentDir}`;
      const revisions = new Map<string, RevisionModel>();
      for (const revDir of childrenOf(`${dir}/revisions`)) {
        if (revDir.startsWith('.')) continue;
        const rdir = `${dir}/revisions/${revDir}`;
        const revMarker = at(`${rdir}/revision.json`);
        revisions.set(revDir, { dirName: revDir, dir: at(rdir)!, marker: revMarker ? parse(revMarker, revisionMarker) : null, config: at(`${rdir}/openclaw.json`) });
      }
      const agentEntry = at(`${dir}/agent.json`);
      const servedEntry = at(`${dir}/served.json`);
      agents.set(agentDir, {
        nsDir,
        dirName: agentDir,
        dir: at(dir)!,
        marker: agentEntry ? parse(agentEntry, agentMarker) : null,
        home: at(`${dir}/home`),
        state: at(`${dir}/state`),
        password: at(`${dir}/gateway-password.env`),
        current: at(`${dir}/current`),
        served: servedEntry ? parse(servedEntry, servedMarker) : null,
        revisions,
        names: childrenOf(dir),
      });
    }
    namespaces.set(nsDir, { dirName: nsDir, marker: markerEntry ? parse(markerEntry, namespaceMarker) : null, agents });
  }

  const removals: HostModel['removals'] = [];
  for (const name of childrenOf('.removing')) {
    const token = removalOfMarkerFile(name) ?? name;
    const text = at(`.removing/${token}.json`);
    const marker = text ? parse(text, removalMarker).marker : null;
    removals.push({ path: `.removing/${name}`, ...(marker ? { namespaceId: marker.namespaceId, ...(marker.agentId ? { agentId: marker.agentId } : {}) } : {}) });
  }

  const accounts = new Map<string, Parsed<AccountMarker>>();
  for (const name of childrenOf('accounts')) {
    if (name.startsWith('.') || !name.endsWith('.json')) continue;
    accounts.set(name.slice(0, -'.json'.length), parse(at(`accounts/${name}`)!, accountMarker));
  }
  const temps = [...listing.entries.filter((entry) => entry.path.split('/').pop()!.includes('.tmp-')).map((entry) => `${listing.root}/${entry.path}`), ...listing.unitTemps];
  return { namespaces, deleting, removals, accounts, units: new Map(listing.units.map((unit) => [unit.name, unit])), temps, byPath };
}

/** Every Agent of every live Namespace. */
export function allAgents(model: HostModel): AgentModel[] {
  return [...model.namespaces.values()].flatMap((ns) => [...ns.agents.values()]);
}

/** The revision directory name `current` points at, or null when it is absent or not of the expected shape. */
export function currentRevision(agent: AgentModel): string | null {
  if (!agent.current || agent.current.type !== 'link') return null;
  const match = /^revisions\/([0-9a-f]{12})$/.exec(agent.current.target ?? '');
  return match ? match[1]! : null;
}
