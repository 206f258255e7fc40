// Fabricated Listings for the unit tests of the invariant checker and the expectations: a host
// built from markers exactly as the helper writes them, which a test then damages.
import { accountName, agentHash, canonicalJson, markerText, nsHash, revHash, sha256Hex, unitName, unitOwnershipHeader } from '@occ-ssh/markers';
import type { Entry, Listing } from '../host/listing.js';

const ROOT = '/var/lib/openclaw-enterprise';

export interface FakeAgent {
  namespaceId: string;
  agentId: string;
  uid: number;
  port: number;
  revisions: { id: string; number: number; document: string }[];
  /** Revision ID `current` points at (and served.json names, when `served`). */
  current?: string;
  served?: boolean;
  unit?: { activeState: string; unitFileState: string };
  /** A workspace setup delivered: its marker (root's, in the Agent directory) and the documents in state/workspace. */
  workspace?: { setupId: string; documents: Record<string, string> };
}

const file = (path: string, extra: Partial<Entry> = {}): Entry => ({ path, type: 'file', uid: 0, gid: 0, mode: 0o600, size: 100, ...extra });
const dir = (path: string, extra: Partial<Entry> = {}): Entry => ({ path, type: 'dir', uid: 0, gid: 0, mode: 0o711, size: 4096, ...extra });

type Owner = { driver: 'compute-ssh'; namespaceId: string; agentId: string; servicePrincipalId: string };

/** Each revision's directory, snapshot and marker. */
function revisionEntries(a: string, agent: FakeAgent, owner: Owner): Entry[] {
  const entries: Entry[] = [];
  for (const revision of agent.revisions) {
    const r = `${a}/revisions/${revHash(revision.id)}`;
    entries.push(
      dir(r),
      file(`${r}/openclaw.json`, { gid: agent.uid, mode: 0o640, sha256: sha256Hex(revision.document) }),
      file(`${r}/revision.json`, {
        text: markerText({
          kind: 'revision',
          version: 1,
          ...owner,
          revisionId: revision.id,
          revisionNumber: revision.number,
          configurationHash: sha256Hex(revision.document),
          harness: 'openclaw/embedded',
          auth: 'password',
        }),
      }),
    );
  }
  return entries;
}

/** `current` and, when serving, served.json (with the gateway answering /readyz). */
function currentEntries(listing: Listing, a: string, agent: FakeAgent): Entry[] {
  const entries: Entry[] = [];
  const current = agent.revisions.find((revision) => revision.id === agent.current);
  if (current) {
    entries.push({ path: `${a}/current`, type: 'link', uid: 0, gid: 0, mode: 0o777, size: 22, target: `revisions/${revHash(current.id)}` });
    if (agent.served) {
      entries.push(
        file(`${a}/served.json`, {
          text: markerText({
            kind: 'served',
            version: 1,
            driver: 'compute-ssh',
            namespaceId: agent.namespaceId,
            agentId: agent.agentId,
            revisionId: current.id,
            revisionNumber: current.number,
            configurationHash: sha256Hex(current.document),
            port: agent.port,
            servedAt: '2024-06-01T00:00:00.000Z',
          }),
        }),
      );
      listing.ready[String(agent.port)] = true;
    }
  }
  return entries;
}

/** The workspace setup's marker and its documents in state/workspace. */
function workspaceEntries(a: string, agent: FakeAgent, owner: Owner): Entry[] {
  if (!agent.workspace) return [];
  const entries: Entry[] = [];
  const digests = Object.fromEntries(Object.entries(agent.workspace.documents).map(([name, content]) => [name, sha256Hex(content)]));
  entries.push(
    file(`${a}/workspace-setup.json`, {
      text: `${canonicalJson({ kind: 'workspace-setup', version: 1, ...owner, setupId: agent.workspace.setupId, documents: digests, openclawVersion: '2026.0.0-chaos' })}\n`,
    }),
    dir(`${a}/state/workspace`, { uid: agent.uid, gid: agent.uid, mode: 0o700 }),
    ...Object.entries(digests).map(([name, digest]) => file(`${a}/state/workspace/${name}`, { uid: agent.uid, gid: agent.uid, sha256: digest })),
  );
  return entries;
}

export function fakeListing(agents: FakeAgent[]): Listing {
  const entries: Entry[] = [dir('accounts'), dir('namespaces'), file('.compute-lock', { size: 0 })];
  const listing: Listing = {
    root: ROOT,
    unitDir: '/etc/systemd/system',
    quiet: { waitedMs: 150, timedOut: false, helpers: [] },
    lock: { free: true, waitedMs: 0 },
    entries,
    units: [],
    setupUnits: [],
    unitTemps: [],
    users: [],
    groups: [],
    ready: {},
  };
  const namespaces = new Set<string>();
  for (const agent of agents) {
    const ns = `namespaces/${nsHash(agent.namespaceId)}`;
    if (!namespaces.has(ns)) {
      namespaces.add(ns);
      entries.push(
        dir(ns),
        dir(`${ns}/agents`),
        file(`${ns}/namespace.json`, { text: markerText({ kind: 'namespace', version: 1, driver: 'compute-ssh', namespaceId: agent.namespaceId, namespaceName: 'stable' }) }),
      );
    }
    const account = accountName('openclaw', agent.namespaceId, agent.agentId);
    const owner = { driver: 'compute-ssh' as const, namespaceId: agent.namespaceId, agentId: agent.agentId, servicePrincipalId: `sp-${agent.agentId}` };
    entries.push(file(`accounts/${account}.json`, { text: markerText({ kind: 'account', version: 1, ...owner, account, state: 'active', uid: agent.uid, gid: agent.uid }) }));
    listing.users.push({ name: account, uid: agent.uid, gid: agent.uid });
    listing.groups.push({ name: account, gid: agent.uid });
    const a = `${ns}/agents/${agentHash(agent.agentId)}`;
    entries.push(
      dir(a),
      file(`${a}/agent.json`, { text: markerText({ kind: 'agent', version: 1, ...owner, account, uid: agent.uid, gid: agent.uid, port: agent.port }) }),
      dir(`${a}/home`, { uid: agent.uid, gid: agent.uid, mode: 0o700 }),
      dir(`${a}/state`, { uid: agent.uid, gid: agent.uid, mode: 0o700 }),
      file(`${a}/gateway-password.env`),
      dir(`${a}/revisions`),
    );
    entries.push(...revisionEntries(a, agent, owner), ...currentEntries(listing, a, agent), ...workspaceEntries(a, agent, owner));
    if (agent.unit) {
      listing.units.push({ name: unitName(agent.agentId), type: 'file', uid: 0, head: unitOwnershipHeader(agent.namespaceId, agent.agentId), ...agent.unit });
    }
  }
  return listing;
}

/** A healthy host: one serving Agent with two revisions, and a second Agent only prepared. */
export function healthyHost(): Listing {
  return fakeListing([
    {
      namespaceId: 'ns-a',
      agentId: 'agent-1',
      uid: 999,
      port: 18800,
      revisions: [
        { id: 'rev-1', number: 1, document: '{"a":1}\n' },
        { id: 'rev-2', number: 2, document: '{"a":2}\n' },
      ],
      current: 'rev-2',
      served: true,
      unit: { activeState: 'active', unitFileState: 'enabled' },
    },
    { namespaceId: 'ns-a', agentId: 'agent-2', uid: 998, port: 18801, revisions: [{ id: 'rev-9', number: 1, document: '{"b":1}\n' }] },
  ]);
}

/** Returns the entry at `path` (relative to the root) for a test to damage, failing loudly when absent. */
export function entryAt(listing: Listing, suffix: string): Entry {
  const entry = listing.entries.find((e) => e.path.endsWith(suffix));
  if (!entry) throw new Error(`fixture has no entry ending in ${suffix}`);
  return entry;
}
