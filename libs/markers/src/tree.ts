// The on-host tree as typed entries with their layouts, read through an injected reader: the
// helper passes its no-follow, ownership-checked primitives, tests an in-memory tree. No I/O here.
import type * as z from 'zod/mini';
import { agentDirAt, agentLayout, accountOfMarkerFile, namespaceLayoutAt, revisionLayoutAt, rootLayout, type AgentLayout, type RevisionLayout } from './layout.js';
import { accountMarker, agentMarker, namespaceMarker, revisionMarker, type AccountMarker, type AgentMarker, type NamespaceMarker, type RevisionMarker } from './schemas.js';

export interface TreeReader {
  /** The entry names of a directory, sorted; none when it is absent. */
  list(dir: string): string[];
  /** The marker at `path` checked against `schema`, or null when absent; the reader decides what else is refused. */
  marker<S extends z.ZodMiniType>(path: string, schema: S): z.infer<S> | null;
}

/** Names starting with a dot are temps and renamed-away trees, never entries. */
export const treeEntries = (reader: TreeReader, dir: string): string[] => reader.list(dir).filter((name) => !name.startsWith('.'));

export interface AccountEntry {
  path: string;
  /** The account the file is named for: a marker naming another is misplaced. */
  fileAccount: string;
  marker: AccountMarker;
}

/** Every account marker under the root's `accounts/`. */
export function accountEntries(root: string, reader: TreeReader): AccountEntry[] {
  const dir = rootLayout(root).accounts;
  return treeEntries(reader, dir).flatMap((file) => {
    const fileAccount = accountOfMarkerFile(file);
    if (fileAccount === null) return [];
    const path = `${dir}/${file}`;
    const marker = reader.marker(path, accountMarker);
    return marker ? [{ path, fileAccount, marker }] : [];
  });
}

export interface NamespaceEntry {
  layout: ReturnType<typeof namespaceLayoutAt>;
  marker: NamespaceMarker | null;
}

export function namespaceEntries(root: string, reader: TreeReader): NamespaceEntry[] {
  return treeEntries(reader, rootLayout(root).namespaces).map((name) => {
    const layout = namespaceLayoutAt(root, name);
    return { layout, marker: reader.marker(layout.marker, namespaceMarker) };
  });
}

export interface AgentEntry {
  dir: string;
  markerPath: string;
  marker: AgentMarker | null;
  /** The layout the marker's IDs give: its `dir` differs from `dir` when the marker sits in another Agent's directory. */
  layout: AgentLayout | null;
}

/** The Agent directories of a Namespace's `agents/`, each with its marker when it has one. */
export function agentEntries(root: string, unitDirectory: string, agentsDir: string, reader: TreeReader): AgentEntry[] {
  return treeEntries(reader, agentsDir).map((name) => {
    const { dir, marker: markerPath } = agentDirAt(agentsDir, name);
    const marker = reader.marker(markerPath, agentMarker);
    return { dir, markerPath, marker, layout: marker ? agentLayout(root, unitDirectory, marker.namespaceId, marker.agentId) : null };
  });
}

export interface RevisionEntry {
  name: string;
  layout: RevisionLayout;
  marker: RevisionMarker | null;
}

/** The stored revisions of an Agent, whatever revision each turns out to be. */
export function revisionEntries(agent: Pick<AgentLayout, 'dir' | 'revisions'>, reader: TreeReader): RevisionEntry[] {
  return treeEntries(reader, agent.revisions).map((name) => {
    const layout = revisionLayoutAt(agent.dir, name);
    return { name, layout, marker: reader.marker(layout.marker, revisionMarker) };
  });
}
