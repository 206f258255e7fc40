// The per-Agent private system user and group, bound to their owner by a root-owned marker.
import { existsSync, readFileSync } from 'node:fs';
import { accountMarker, accountMarkerPath, accountName, type AccountMarker } from '@occ-ssh/markers';
import { ComputeError, DRIVER_ID, type AgentOwner } from '@occ-ssh/protocol';
import { removeFile } from '../fs/atomic-write.js';
import { beforeChange } from '../run/change-guard.js';
import { getentArgv, groupdelArgv, useraddArgv, userdelArgv } from '../run/commands.js';
import type { OpContext } from '../context/context.js';
import { expectOwner, readMarker, writeMarker } from '../fs/marker-io.js';
import { ownershipError } from '../fs/safe-read.js';
import { mustRun, type HostRunner } from '../run/system.js';
import { clearUid } from './uid-leftovers.js';

export interface Account {
  name: string;
  uid: number;
  gid: number;
}

interface Entry {
  name: string;
  id: number;
  primaryGid?: number;
}

/** The entry of the name `key` in the root-owned local file (where useradd writes it), or undefined when it has none. */
function localEntry(database: 'passwd' | 'group', key: string): Entry | undefined {
  let text: string;
  try {
    text = readFileSync(`/etc/${database}`, 'utf8');
  } catch {
    return undefined;
  }
  // The line is found without splitting the file into lines: it has one per account, a thousand on a full host.
  const start = `\n${text}`.indexOf(`\n${key}:`);
  if (start === -1) return undefined;
  const end = text.indexOf('\n', start);
  const fields = text.slice(start, end === -1 ? undefined : end).split(':');
  return { name: key, id: Number(fields[2]), ...(database === 'passwd' ? { primaryGid: Number(fields[3]) } : {}) };
}

/**
 * A user or group by name as NSS resolves it; null when absent. The local file is read first, as
 * NSS does in its usual `files`-first order, so a verification starts no process (two `getent`
 * runs were most of verify-revision's own time); only a name the file lacks asks getent. Both
 * files are root's: an Agent cannot plant an entry. Keys are account names, never numeric IDs.
 */
export async function lookup(runner: HostRunner, database: 'passwd' | 'group', key: string): Promise<Entry | null> {
  const local = localEntry(database, key);
  if (local) return local;
  const result = await runner.run(getentArgv(database, key));
  if (result.code === 2) return null;
  if (result.code !== 0) throw new ComputeError('host-command', `getent ${database} failed with exit code ${result.code}`);
  const fields = result.stdout.trim().split(':');
  const id = Number(fields[2]);
  const primaryGid = database === 'passwd' ? Number(fields[3]) : undefined;
  return { name: fields[0] ?? '', id, ...(primaryGid === undefined ? {} : { primaryGid }) };
}

function ownerFields(owner: AgentOwner) {
  return { driver: DRIVER_ID, namespaceId: owner.namespace.id, agentId: owner.agent.id, servicePrincipalId: owner.servicePrincipal.id };
}

/** Read before any change: the shell useradd is given, the first of these the host has. */
function nologinShell(): string {
  return ['/usr/sbin/nologin', '/sbin/nologin', '/bin/false'].find((path) => existsSync(path)) ?? '/bin/false';
}

/** What prepare-revision reads of the Agent's account before any change. */
export type AccountState =
  | { state: 'active'; account: Account }
  | {
      state: 'missing';
      name: string;
      markerPath: string;
      creating: AccountMarker | null;
      userExists: boolean;
      groupExists: boolean;
      startOver: boolean;
      shell: string;
      /** The Installation's ID range, when it sets one (account-ids.ts). */
      idRange?: { start: number; end: number };
    };

/**
 * The Agent's account as it stands, refusing what may not be created or adopted: an account or
 * group that exists without this driver's marker, or a recorded one whose IDs changed. A marker in
 * state `creating` is an interrupted creation of our own, which `createAccount` completes.
 */
export async function readAccount(ctx: OpContext, owner: AgentOwner): Promise<AccountState> {
  const name = accountName(ctx.runtime.user, owner.namespace.id, owner.agent.id);
  const markerPath = accountMarkerPath(ctx.runtime.root, name);
  const marker = readMarker(markerPath, accountMarker);
  if (marker) expectOwner(markerPath, marker, { ...ownerFields(owner), account: name });
  const [user, group] = await Promise.all([lookup(ctx.runner, 'passwd', name), lookup(ctx.runner, 'group', name)]);
  if (!marker && (user || group)) {
    throw ownershipError(markerPath, `${user ? 'user' : 'group'} ${name} exists without this driver's ownership marker; refusing to adopt it`);
  }
  if (marker?.state === 'active') return { state: 'active', account: verifyActive(markerPath, marker, user, group) };
  // useradd commits the user before its group: cut between the two, it leaves a user whose primary GID
  // no group has, which a group made afterwards would not carry. Only our own creation leaves this.
  const startOver = user !== null && user.primaryGid !== group?.id;
  const idRange = ctx.runtime.accountIdRange;
  return {
    state: 'missing',
    name,
    markerPath,
    creating: marker,
    userExists: user !== null,
    groupExists: group !== null,
    startOver,
    shell: nologinShell(),
    ...(idRange ? { idRange: { ...idRange } } : {}),
  };
}

/** The `creating` marker written before useradd, so a retry after an interruption recognises the half-made account as its own. */
export function creatingMarker(owner: AgentOwner, name: string): AccountMarker {
  return { kind: 'account', version: 1, ...ownerFields(owner), account: name, state: 'creating' };
}

/** What creating one account takes: a plan's `create-account` step. */
export interface Creation {
  name: string;
  home: string;
  marker: string;
  creating: AccountMarker;
  userExists: boolean;
  groupExists: boolean;
  /** An interrupted creation left a user without its private group as primary: both are removed and made again. */
  startOver: boolean;
  shell: string;
  idRange?: { start: number; end: number };
}

/** The commands that create the account, from what the read phase found: none when both exist and match. */
function creationCommands({ name, home, shell, userExists, groupExists, startOver, idRange }: Omit<Creation, 'marker' | 'creating'>) {
  // userdel drops only a same-named group that is the user's primary one, so a mismatched group goes by itself.
  if (startOver) return [userdelArgv(name), ...(groupExists ? [groupdelArgv(name)] : []), useraddArgv({ name, home, shell, groupExists: false, idRange })];
  return userExists ? [] : [useraddArgv({ name, home, shell, groupExists, idRange })];
}

/** useradd (after removing what an interrupted one left, where it must), then the marker turned `active` with the new IDs. */
export async function createAccount(runner: HostRunner, creation: Creation): Promise<Account> {
  const { name, marker, creating } = creation;
  const commands = creationCommands(creation);
  if (commands.length > 0) beforeChange();
  for (const command of commands) await mustRun(runner, command);
  const [createdUser, createdGroup] = await Promise.all([lookup(runner, 'passwd', name), lookup(runner, 'group', name)]);
  if (!createdGroup) throw new ComputeError('host-command', `group ${name} is missing after useradd`);
  if (!createdUser) throw new ComputeError('host-command', `user ${name} is missing after useradd`);
  if (createdUser.primaryGid !== createdGroup.id) throw ownershipError(marker, `user ${name} does not have its private group ${name} as primary group`);
  const active: AccountMarker = { ...creating, state: 'active', uid: createdUser.id, gid: createdGroup.id };
  writeMarker(marker, active);
  return { name, uid: createdUser.id, gid: createdGroup.id };
}

/** Security: the live account must still carry the recorded UID/GID, so a reused ID is never trusted. */
function verifyActive(path: string, marker: AccountMarker, user: Entry | null, group: Entry | null): Account {
  if (!user || !group) throw ownershipError(path, `account ${marker.account} is recorded but its ${user ? 'group' : 'user'} is missing`);
  if (user.id !== marker.uid || group.id !== marker.gid || user.primaryGid !== marker.gid) {
    throw ownershipError(path, `account ${marker.account} no longer has the recorded UID/GID ${marker.uid}/${marker.gid}`);
  }
  return { name: marker.account, uid: user.id, gid: group.id };
}

/** Reads and verifies the Agent's account without creating anything. */
export async function verifyAccount(ctx: OpContext, owner: AgentOwner): Promise<Account> {
  const name = accountName(ctx.runtime.user, owner.namespace.id, owner.agent.id);
  const markerPath = accountMarkerPath(ctx.runtime.root, name);
  const marker = readMarker(markerPath, accountMarker);
  if (!marker || marker.state !== 'active') throw ownershipError(markerPath, 'the Agent account marker is missing or incomplete; prepare the revision first');
  expectOwner(markerPath, marker, { ...ownerFields(owner), account: name });
  const [user, group] = await Promise.all([lookup(ctx.runner, 'passwd', name), lookup(ctx.runner, 'group', name)]);
  return verifyActive(markerPath, marker, user, group);
}

/**
 * Security: an owned account may be removed only while the user and group that still exist carry
 * the recorded UID/GID (a retry may find either already gone). Returns what exists.
 */
export async function verifyRemovable(runner: HostRunner, markerPath: string, marker: AccountMarker): Promise<{ user: Entry | null; group: Entry | null }> {
  const [user, group] = await Promise.all([lookup(runner, 'passwd', marker.account), lookup(runner, 'group', marker.account)]);
  if (user && marker.uid !== undefined && user.id !== marker.uid) throw ownershipError(markerPath, `user ${marker.account} has UID ${user.id}, not the recorded ${marker.uid}`);
  if (group && marker.gid !== undefined && group.id !== marker.gid) throw ownershipError(markerPath, `group ${marker.account} has GID ${group.id}, not the recorded ${marker.gid}`);
  return { user, group };
}

/**
 * Security: the Agent's account as its deletion finds it, before any change. A marker must name this
 * Agent and the user and group still there must carry its IDs; a user or group of the name without
 * a marker is someone else's. Null when nothing of it is left.
 */
export async function readRemovableAccount(ctx: OpContext, owner: AgentOwner): Promise<{ path: string; marker: AccountMarker; userExists: boolean } | null> {
  const name = accountName(ctx.runtime.user, owner.namespace.id, owner.agent.id);
  const path = accountMarkerPath(ctx.runtime.root, name);
  const marker = readMarker(path, accountMarker);
  if (marker) {
    expectOwner(path, marker, { ...ownerFields(owner), account: name });
    const { user } = await verifyRemovable(ctx.runner, path, marker);
    return { path, marker, userExists: user !== null };
  }
  const [user, group] = await Promise.all([lookup(ctx.runner, 'passwd', name), lookup(ctx.runner, 'group', name)]);
  if (user || group) throw ownershipError(path, `${user ? 'user' : 'group'} ${name} exists without this driver's ownership marker; refusing to remove it`);
  return null;
}

/**
 * Removes an owned account: what its UID holds outside the Agent's tree, then user, group and its
 * marker, so a retry finds what is left. Security: the UID is freed only once it holds nothing.
 */
export async function removeAccount(runner: HostRunner, markerPath: string, marker: AccountMarker, signal: AbortSignal): Promise<void> {
  const { user, group } = await verifyRemovable(runner, markerPath, marker);
  if (user || group) beforeChange();
  if (user) await clearUid(runner, user.id, signal);
  if (user) await mustRun(runner, userdelArgv(marker.account));
  // userdel already drops a same-named primary group where USERGROUPS_ENAB is set.
  if (group && (await lookup(runner, 'group', marker.account))) await mustRun(runner, groupdelArgv(marker.account));
  removeFile(markerPath);
}
