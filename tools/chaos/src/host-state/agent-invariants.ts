// The invariants of one Agent directory: its marker, its account, its private directories, its
// revisions, and what current and served.json name. Pure.
import { accountName, agentHash, nsHash, revHash, type AgentMarker } from '@occ-ssh/markers';
import { currentRevision, type AgentModel } from './model.js';
import type { Judge } from './judge.js';

export function checkAgent(j: Judge, agent: AgentModel, namespaceId: string | undefined, dir: string): void {
  const { add, pending, markerOk } = j;
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
  if (marker.port < j.settings.portRange.start || marker.port > j.settings.portRange.end) add('port', `${dir}/agent.json`, `port ${marker.port} is outside the configured range`);

  // The account the marker names must be ours, active and live with the recorded IDs.
  const account = j.model.accounts.get(marker.account);
  const user = j.listing.users.find((entry) => entry.name === marker.account);
  const group = j.listing.groups.find((entry) => entry.name === marker.account);
  if (!account?.marker || account.marker.state !== 'active') add('account-binding', `${dir}/agent.json`, `account ${marker.account} has no active account marker`);
  else if (account.marker.uid !== marker.uid || account.marker.gid !== marker.gid) add('account-binding', `${dir}/agent.json`, 'Agent and account markers record different IDs');
  if (!user || user.uid !== marker.uid || user.gid !== marker.gid || !group || group.gid !== marker.gid) {
    add('account-binding', `${dir}/agent.json`, `live account ${marker.account} does not carry the recorded UID/GID ${marker.uid}/${marker.gid}`);
  }
  if (accountName(j.settings.user, marker.namespaceId, marker.agentId) !== marker.account) add('marker-owner', `${dir}/agent.json`, 'account name does not derive from the Namespace and Agent');
  checkPrivate(j, agent, marker, dir);
  checkRevisions(j, agent, marker, dir);
  checkCurrentAndServed(j, agent, marker, dir);
}

/** home/ and state/ belong to the Agent's account, 0700; the managed password file is root's, 0600. */
function checkPrivate({ add }: Judge, agent: AgentModel, marker: AgentMarker, dir: string): void {
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
}

/** Every staged revision: its marker names this owner and its snapshot hashes to what it records. */
function checkRevisions({ add, pending, markerOk }: Judge, agent: AgentModel, marker: AgentMarker, dir: string): void {
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
}

/** current points at a staged revision, and served.json names that revision, this owner and its port. */
function checkCurrentAndServed({ add, pending, markerOk, listing }: Judge, agent: AgentModel, marker: AgentMarker, dir: string): void {
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
      // A stop a cut helper handed to systemd finished while the checker probed: the retry must remove served.json.
      if (listing.servedStopped?.includes(served.port)) pending.push(`${dir}/served.json: its gateway on ${served.port} was stopped while checked (a stop the cut helper began)`);
    }
  }
}
