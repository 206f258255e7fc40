// Where a new Agent account's UID and GID come from, and how many are left there. Without an
// Installation range, accounts are system accounts, whose IDs `useradd --system` takes from
// login.defs' SYS_UID_MIN..SYS_UID_MAX (101 to 999 where unset, as shadow reads it): fewer than 900
// Agents, minus the host's own system accounts. With `runtime.accountIdRange`, they come from that
// range (docs/architecture.md, "Agent account IDs"). Running out is a `capacity` refusal before any
// change, never a useradd error half-way through a plan.
import { readFileSync } from 'node:fs';
import { ComputeError, type RuntimeSettings } from '@occ-ssh/protocol';

export interface IdRange {
  start: number;
  end: number;
  /** Where the range comes from, as a refusal names it. */
  from: string;
}

const LOGIN_DEFS = '/etc/login.defs';

/** `KEY value` lines of login.defs as shadow reads them: '#' starts a comment, a later value replaces an earlier one. */
export function loginDefs(text: string): Map<string, string> {
  const defs = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value && !key.startsWith('#')) defs.set(key, value);
  }
  return defs;
}

/** The range of system IDs of one kind (UID or GID) useradd --system uses: shadow's defaults where login.defs is silent. */
function systemRange(defs: Map<string, string>, kind: 'UID' | 'GID'): IdRange {
  const number = (key: string, fallback: number) => {
    const value = Number(defs.get(key));
    return Number.isSafeInteger(value) && value >= 0 ? value : fallback;
  };
  const start = number(`SYS_${kind}_MIN`, 101);
  const end = number(`SYS_${kind}_MAX`, number(`${kind}_MIN`, 1000) - 1);
  return { start, end, from: `${LOGIN_DEFS} SYS_${kind}_MIN-SYS_${kind}_MAX` };
}

/** The UID and GID ranges a new Agent account is made in. */
export function accountIdRanges(runtime: Pick<RuntimeSettings, 'accountIdRange'>, readDefs = () => readFileSync(LOGIN_DEFS, 'utf8')): { uid: IdRange; gid: IdRange } {
  if (runtime.accountIdRange) {
    const range = { ...runtime.accountIdRange, from: 'runtime.accountIdRange' };
    return { uid: range, gid: range };
  }
  let text = '';
  try {
    text = readDefs();
  } catch {
    // No login.defs: shadow's own defaults apply.
  }
  const defs = loginDefs(text);
  return { uid: systemRange(defs, 'UID'), gid: systemRange(defs, 'GID') };
}

/** The IDs the local database file (/etc/passwd or /etc/group) gives out: its third field. */
export function idsIn(text: string): Set<number> {
  const ids = new Set<number>();
  for (const line of text.split('\n')) {
    const id = Number(line.split(':')[2]);
    if (line.includes(':') && Number.isSafeInteger(id)) ids.add(id);
  }
  return ids;
}

const freeIn = ({ start, end }: IdRange, used: Set<number>) => Math.max(0, end - start + 1 - [...used].filter((id) => id >= start && id <= end).length);

export interface FreeAccountIds {
  uid: IdRange;
  gid: IdRange;
  freeUids: number;
  freeGids: number;
}

/** How many more accounts the ranges can take: free UIDs and free GIDs, each counted against the local files. */
export function freeAccountIds(runtime: Pick<RuntimeSettings, 'accountIdRange'>, read: (path: string) => string = (path) => readFileSync(path, 'utf8')): FreeAccountIds {
  const { uid, gid } = accountIdRanges(runtime, () => read(LOGIN_DEFS));
  return { uid, gid, freeUids: freeIn(uid, idsIn(read('/etc/passwd'))), freeGids: freeIn(gid, idsIn(read('/etc/group'))) };
}

/** New accounts the host can still make: the fewer of its free UIDs and GIDs; null when the local files cannot be read. */
export function accountIdsLeft(runtime: Pick<RuntimeSettings, 'accountIdRange'>): number | null {
  try {
    const { freeUids, freeGids } = freeAccountIds(runtime);
    return Math.min(freeUids, freeGids);
  } catch {
    return null;
  }
}

/**
 * A retryable `capacity` refusal when the account a new Agent needs cannot be made: no free UID, or no
 * free GID when its group must be made too. Checked before the plan's first change.
 */
export function refuseWithoutAccountIds(runtime: Pick<RuntimeSettings, 'accountIdRange'>, needs: { gid: boolean }, read?: (path: string) => string): void {
  const free = freeAccountIds(runtime, read);
  const key = { key: 'runtime.accountIdRange' };
  const advice = runtime.accountIdRange
    ? 'widen runtime.accountIdRange or delete an Agent on this host'
    : 'set runtime.accountIdRange to make Agent accounts in a larger range, or delete an Agent on this host';
  for (const [kind, range, left] of [
    ['UID', free.uid, free.freeUids],
    ['GID', free.gid, needs.gid ? free.freeGids : 1],
  ] as const) {
    if (left === 0) throw new ComputeError('capacity', `no free ${kind} left for a new Agent account in ${range.start}-${range.end} (${range.from}): ${advice}`, key);
  }
}
