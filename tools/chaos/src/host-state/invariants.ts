// The host invariants every interruption must preserve, judged on one Listing. Pure.
// A violation breaks a promise; a pending item is a documented intermediate state (an
// unfinished deletion, an account still being created) that the next retry must clear.
import { accountName, agentHash, hasOwnershipHeader, nsHash, revHash, UNIT_PREFIX } from '@occ-ssh/markers';
import type { Listing } from '../host/listing.js';
import { allAgents, buildModel, currentRevision, type AgentModel, type HostModel, type Parsed } from './model.js';

export type Rule =
  | 'marker'
  | 'marker-owner'
  | 'marker-mode'
  | 'snapshot'
  | 'current'
  | 'served'
  | 'temp-file'
  | 'lock'
  | 'helper-running'
  | 'orphan-account'
  | 'account-binding'
  | 'agent-dir'
  | 'private-dir'
  | 'unit'
  | 'port'
  | 'uid';

export interface Violation {
  rule: Rule;
  path: string;
  message: string;
}

export interface Verdict {
  violations: Violation[];
  pending: string[];
}

export interface InvariantSettings {
  /** runtime.user: account names are `<user>-<12 hex>`. */
  user: string;
  portRange: { start: number; end: number };
}

const ROOT_MARKER = { uid: 0, gid: 0, mode: 0o600 };

export function checkInvariants(listing: Listing, settings: InvariantSettings): Verdict {
  const model = buildModel(listing);
  const violations: Violation[] = [];
  const pending: string[] = [];
  const add = (rule: Rule, path: string, message: string) => violations.push({ rule, path, message });
  const root = listing.root;

  if (listing.quiet.timedOut) add('helper-running', root, `a helper was still running after ${listing.quiet.waitedMs} ms: ${listing.quiet.helpers.join('; ')}`);
  if (!listing.lock.free) add('lock', `${root}/.compute-lock`, 'flock --nonblock could not take the lock once no helper was left');
  for (const temp of model.temps) add('temp-file', temp, 'temporary file left behind');

  const markerOk = <T>(parsed: Parsed<T> | null, path: string): parsed is Parsed<T> & { marker: T } => {
    if (!parsed) return false;
    const { entry } = parsed;
    if (entry.type === 'file' && (entry.uid !== ROOT_MARKER.uid || entry.gid !== ROOT_MARKER.gid || entry.mode !== ROOT_MARKER.mode)) {
      add('marker-mode', path, `expected root:root 0600, found ${entry.uid}:${entry.gid} ${entry.mode.toString(8)}`);
    }
    if (parsed.problem) add('marker', path, `marker ${parsed.problem}`);
    return parsed.marker !== null;
  };

  for (const ns of model.namespaces.values()) {
    const nsPath = `${root}/namespaces/${ns.dirName}`;
    if (!ns.marker) {
      if (ns.agents.size > 0) add('marker', `${nsPath}/namespace.json`, 'Namespace directory holds Agents but has no Namespace marker');
      else pending.push(`${nsPath}: Namespace directory without its marker yet`);
    } else if (markerOk(ns.marker, `${nsPath}/namespace.json`) && nsHash(ns.marker.marker.namespaceId) !== ns.dirName) {
      add('marker-owner', `${nsPath}/namespace.json`, `namespaceId ${ns.marker.marker.namespaceId} does not hash to the directory name`);
    }
    const namespaceId = ns.marker?.marker?.namespaceId;
    for (const agent of ns.agents.values()) checkAgent(agent, namespaceId, `${nsPath}/agents/${agent.dirName}`);
  }
  for (const name of model.deleting) pending.push(`${root}/namespaces/${name}: ${name.includes('/agents/') ? 'Agent' : 'Namespace'} removal not finished`);
  for (const { path } of model.removals) pending.push(`${root}/${path}: removal not finished`);

  function checkAgent(agent: AgentModel, namespaceId: string | undefined, dir: string): void {
    if (!agent.marker) {
      const content = agent.names.filter((name) => !name.startsWith('.'));
      if (content.length > 0) add('agent-dir', dir, `Agent directory holds ${content.join(', ')} but no Agent marker`);
      else pending.push(`${dir}: empty Agent directory without its marker yet`);
      return;
    }
    if (!markerOk(agent.marker, `${dir}/agent.json`)) return;
    const marker = agent.marker.marker;
    if (agentHash(marker.agentId) !== agent.dirName) add('marker-owner', `${dir}/agent.json`, `agentId ${marker.agentId} does not hash to the directory name`);
    if (namespaceId !== undefined && marker.namespaceId !== namespaceId) add('marker-owner', `${dir}/agent.json`, 'Agent marker names another Namespace');
    if (nsHash(marker.namespaceId) !== agent.nsDir) add('marker-owner', `${dir}/agent.json`, 'Agent marker is stored under another Namespace directory');
    if (marker.port < settings.portRange.start || marker.port > settings.portRange.end) add('port', `${dir}/agent.json`, `port ${marker.port} is outside the configured range`);

    // The account the marker names must be ours, active and live with the recorded IDs.
    const account = model.accounts.get(marker.account);
    const user = listing.users.find((entry) => entry.name === marker.account);
    const group = listing.groups.find((entry) => entry.name === marker.account);
    if (!account?.marker || account.marker.state !== 'active') add('account-binding', `${dir}/agent.json`, `account ${marker.account} has no active account marker`);
    else if (account.marker.uid !== marker.uid || account.marker.gid !== marker.gid) add('account-binding', `${dir}/agent.json`, 'Agent and account markers record different IDs');
    if (!user || user.uid !== marker.uid || user.gid !== marker.gid || !group || group.gid !== marker.gid) {
      add('account-binding', `${dir}/agent.json`, `live account ${marker.account} does not carry the recorded UID/GID ${marker.uid}/${marker.gid}`);
    }
    if (accountName(settings.user, marker.namespaceId, marker.agentId) !== marker.account) add('marker-owner', `${dir}/agent.json`, 'account name does not derive from the Namespace and Agent');

    for (const [name, entry] of [
      ['home', agent.home],
      ['state', agent.state],
    ] as const) {
      if (!entry) continue;
      if (entry.type !== 'dir' || entry.uid !== marker.uid || entry.gid !== marker.gid || entry.mode !== 0o700) {
        add('private-dir', `${dir}/${name}`, `expected a ${marker.uid}:${marker.gid} 0700 directory, found a ${entry.type} ${entry.uid}:${entry.gid} ${entry.mode.toString(8)}`);
      }
    }
    if (agent.password && (agent.password.type !== 'file' || agent.password.uid !== 0 || agent.password.gid !== 0 || agent.password.mode !== 0o600)) {
      add('private-dir', `${dir}/gateway-password.env`, 'managed password file is not root:root 0600');
    }

    for (const revision of agent.revisions.values()) {
      const rdir = `${dir}/revisions/${revision.dirName}`;
      if (!revision.marker) {
        pending.push(`${rdir}: revision directory without its marker (staging or retirement not finished)`);
        continue;
      }
      if (!markerOk(revision.marker, `${rdir}/revision.json`)) continue;
      const rm = revision.marker.marker;
      if (revHash(rm.revisionId) !== revision.dirName) add('marker-owner', `${rdir}/revision.json`, `revisionId ${rm.revisionId} does not hash to the directory name`);
      if (rm.agentId !== marker.agentId || rm.namespaceId !== marker.namespaceId || rm.servicePrincipalId !== marker.servicePrincipalId) {
        add('marker-owner', `${rdir}/revision.json`, 'revision marker names another owner');
      }
      const config = revision.config;
      if (!config || config.type !== 'file') add('snapshot', `${rdir}/openclaw.json`, 'revision marker exists but the snapshot is missing');
      else {
        if (config.sha256 !== rm.configurationHash) add('snapshot', `${rdir}/openclaw.json`, 'snapshot bytes do not hash to the recorded configurationHash');
        if (config.uid !== 0 || config.gid !== marker.gid || config.mode !== 0o640)
          add('snapshot', `${rdir}/openclaw.json`, `snapshot is ${config.uid}:${config.gid} ${config.mode.toString(8)}, not root:${marker.gid} 0640`);
      }
    }

    let currentId: string | null = null;
    let currentHash: string | null = null;
    if (agent.current) {
      const target = currentRevision(agent);
      const revision = target === null ? undefined : agent.revisions.get(target);
      if (agent.current.type !== 'link' || target === null)
        add('current', `${dir}/current`, `current is not a link of the form revisions/<revHash> (${agent.current.type} ${agent.current.target ?? ''})`);
      else if (!revision?.marker?.marker) add('current', `${dir}/current`, `current points at ${agent.current.target}, which has no revision marker`);
      else {
        currentId = revision.marker.marker.revisionId;
        currentHash = revision.marker.marker.configurationHash;
      }
    }
    if (agent.served) {
      if (markerOk(agent.served, `${dir}/served.json`)) {
        const served = agent.served.marker;
        if (served.agentId !== marker.agentId || served.namespaceId !== marker.namespaceId) add('served', `${dir}/served.json`, 'served.json names another owner');
        if (currentId === null) add('served', `${dir}/served.json`, `served.json names ${served.revisionId} but current points at no staged revision`);
        else if (served.revisionId !== currentId || served.configurationHash !== currentHash) add('served', `${dir}/served.json`, `served.json names ${served.revisionId} but current is ${currentId}`);
        if (served.port !== marker.port) add('served', `${dir}/served.json`, 'served.json records another port');
        // served.json is written only after readiness: a running gateway it names must be ready.
        if (listing.servedReady?.[String(served.port)] === false) add('served', `${dir}/served.json`, `the active gateway served.json names does not answer /readyz on ${served.port}`);
      }
    }
  }

  checkAccounts(model, listing, settings, add, pending);
  checkUnits(model, listing, add);
  checkDistinct(model, add, root);
  return { violations, pending };
}

function checkAccounts(model: HostModel, listing: Listing, settings: InvariantSettings, add: (rule: Rule, path: string, message: string) => void, pending: string[]): void {
  const root = listing.root;
  const liveAccounts = new Set(
    allAgents(model)
      .map((agent) => agent.marker?.marker?.account)
      .filter((name): name is string => !!name),
  );
  for (const [name, parsed] of model.accounts) {
    const path = `${root}/accounts/${name}.json`;
    const { entry } = parsed;
    if (entry.type === 'file' && (entry.uid !== 0 || entry.gid !== 0 || entry.mode !== 0o600)) add('marker-mode', path, 'account marker is not root:root 0600');
    if (!parsed.marker) {
      add('marker', path, `account marker ${parsed.problem ?? 'is unreadable'}`);
      continue;
    }
    const marker = parsed.marker;
    if (marker.account !== name) add('marker-owner', path, `account marker names ${marker.account}, not its file name`);
    if (accountName(settings.user, marker.namespaceId, marker.agentId) !== name) add('marker-owner', path, "account name does not derive from the marker's Namespace and Agent");
    const user = listing.users.find((entry) => entry.name === name);
    if (marker.state === 'creating') pending.push(`${path}: account still being created`);
    else if (!user) pending.push(`${path}: account marker whose user is already removed (deletion not finished)`);
    else if (user.uid !== marker.uid) add('account-binding', path, `user ${name} has UID ${user.uid}, not the recorded ${String(marker.uid)}`);
    if (!liveAccounts.has(name) && marker.state === 'active' && user) {
      const nsLive = model.namespaces.has(nsHash(marker.namespaceId));
      if (!nsLive) pending.push(`${path}: account of a removed Namespace (deletion not finished)`);
    }
  }
  const prefix = `${settings.user}-`;
  for (const user of listing.users) {
    if (user.name.startsWith(prefix) && !model.accounts.has(user.name)) add('orphan-account', `passwd:${user.name}`, `user ${user.name} exists without an account marker`);
  }
  for (const group of listing.groups) {
    if (group.name.startsWith(prefix) && !model.accounts.has(group.name)) add('orphan-account', `group:${group.name}`, `group ${group.name} exists without an account marker`);
  }
}

function checkUnits(model: HostModel, listing: Listing, add: (rule: Rule, path: string, message: string) => void): void {
  const agents = new Map(
    allAgents(model)
      .filter((agent) => agent.marker?.marker)
      .map((agent) => [agent.dirName, agent.marker!.marker!]),
  );
  // An Agent whose marker exists but does not parse is already reported; its unit is not blamed twice.
  const damaged = new Set(
    allAgents(model)
      .filter((agent) => agent.marker && !agent.marker.marker)
      .map((agent) => agent.dirName),
  );
  for (const unit of model.units.values()) {
    const path = `${listing.unitDir}/${unit.name}`;
    const hash = unit.name.slice(UNIT_PREFIX.length, -'.service'.length);
    const agent = agents.get(hash);
    if (unit.type !== 'file' || unit.uid !== 0) add('unit', path, 'gateway unit is not a root-owned regular file');
    if (damaged.has(hash)) continue;
    if (!agent) add('unit', path, 'gateway unit without a live Agent');
    else if (!hasOwnershipHeader(`${unit.head}\n`, agent.namespaceId, agent.agentId)) add('unit', path, 'gateway unit lacks its exact ownership header');
  }
}

function checkDistinct(model: HostModel, add: (rule: Rule, path: string, message: string) => void, root: string): void {
  const ports = new Map<number, string>();
  const uids = new Map<number, string>();
  for (const agent of allAgents(model)) {
    const marker = agent.marker?.marker;
    if (!marker) continue;
    const where = `${root}/namespaces/${agent.nsDir}/agents/${agent.dirName}/agent.json`;
    const samePort = ports.get(marker.port);
    if (samePort) add('port', where, `port ${marker.port} is also recorded by ${samePort}`);
    ports.set(marker.port, where);
    const sameUid = uids.get(marker.uid);
    if (sameUid) add('uid', where, `UID ${marker.uid} is also recorded by ${sameUid}`);
    uids.set(marker.uid, where);
  }
}
