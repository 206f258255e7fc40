// The invariants that span the host: every account marker and account, every gateway unit, and
// ports and UIDs recorded once each. Pure.
import { accountName, hasOwnershipHeader, nsHash, UNIT_PREFIX } from '@occ-ssh/markers';
import type { Listing } from '../host/listing.js';
import type { InvariantSettings, Rule } from './judge.js';
import { allAgents, type HostModel } from './model.js';

export function checkAccounts(model: HostModel, listing: Listing, settings: InvariantSettings, add: (rule: Rule, path: string, message: string) => void, pending: string[]): void {
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

export function checkUnits(model: HostModel, listing: Listing, add: (rule: Rule, path: string, message: string) => void): void {
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

export function checkDistinct(model: HostModel, add: (rule: Rule, path: string, message: string) => void, root: string): void {
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
