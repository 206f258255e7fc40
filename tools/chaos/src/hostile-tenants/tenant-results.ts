// The hostile-tenants section's results, and the pure readings of what its attackers wrote: which
// probes revealed something outside the Agent's own files, and the sections of a reader's dump.

/** One helper call as its caller saw it: how it ended and how long the caller waited. */
export interface Timed {
  who: string;
  operation: string;
  ok: boolean;
  /** The helper's error code, `no-answer` when no result line came back within the cap. */
  code?: string;
  /** `ok`, or the error code and message. */
  outcome: string;
  ms: number;
  requestId?: string;
}

export interface TenantBounds {
  /**
   * Each sibling operation, and the attacker's own stop, with a lock-holding gateway on the host; a
   * call that took longer beside the calm gateway has CALM_FACTOR times that (tenant-judge.ts).
   */
  operationMs: number;
  /** The trickling Agent's readinessTimeoutMs, and how far past it the activation may answer. */
  readinessTimeoutMs: number;
  readinessMarginMs: number;
  /** inventory of the whole host while a gateway trickles. */
  inventoryMs: number;
  /** The longest silence between two heartbeats of a deletion. */
  heartbeatGapMs: number;
  /** Attempts of delete-namespace before the Namespace must be gone. */
  deleteAttempts: number;
}

export interface LockTrial {
  /** The lock the attacker tried to hold (`flock --shared` or `--exclusive`). */
  mode: 'shared' | 'exclusive';
  /** The attacker held the lock while the calls ran (its own report, written from inside the unit). */
  held: boolean;
  /** What the attacker's flock said, and its non-blocking try of the other mode. */
  attacker: string;
  calls: Timed[];
  problems: string[];
}

export interface TrickleTrial {
  activation: Timed;
  inventory: Timed;
  sibling: Timed;
  problems: string[];
}

export interface ForgedAudit {
  /** Lines the attacker's logger calls reported written, and lines with the forged IDs in the journal. */
  forgedWritten: number;
  forgedInJournal: number;
  inventory: Timed;
  recentAudit: number;
  forgedShown: number;
  realRequests: string[];
  realShown: number;
  problems: string[];
}

export interface HugeTrees {
  depth: number;
  files: number;
  /** The attacker's report of what it planted (absent if it never finished). */
  planted?: { ms: number; depth: number; files: number };
  attempts: (Timed & { heartbeats: number; maxHeartbeatGapMs: number })[];
  /** The Namespace directory and any unfinished removal of it are gone. */
  deleted: boolean;
  targetsUnchanged: boolean;
  problems: string[];
}

export interface Probe {
  path: string;
  category: 'shared root' | 'accounts directory' | 'sibling Agents' | 'reported';
  /** Judge the stat: whether the inode seen is the real one. False for a path on the way to the Agent's own files. */
  judgeStat: boolean;
  /** Names a listing may show: those on the way to the Agent's own home/, state/ and snapshot. */
  ownWay: string[];
}

/** What a process saw of a path: lstat `inode mode uid` and directory listing, or the error codes. */
export interface Seen {
  path: string;
  stat?: string;
  statError?: string;
  list?: string[];
  listError?: string;
}

export interface VisibilityRow {
  gateway: string;
  path: string;
  category: Probe['category'];
  revealed: boolean;
  /** Short, secret-free: `stat shows the real inode`, `lists agent.json`, `stat ENOENT`. */
  seen: string;
}

export interface PlaceholderReaders {
  /** The victim's gateway has the placeholder in its environment (/proc/<pid>/environ read as root). */
  delivered: boolean;
  corpora: { name: string; bytes: number }[];
  sightings: number;
  found: { corpus: string; encoding: string; count: number }[];
  visibility: VisibilityRow[];
  problems: string[];
}

/** The host-pressure attacks (pressure.ts), judged in pressure-judge.ts. */
export interface PlantedNames {
  names: number;
  planted?: { ms: number; names: number };
  /** The sibling's stop with nothing else going on. */
  idleStop?: Timed;
  deletion?: Timed;
  /** The sibling's stop, sent once the planted Agent's unit was down (its deletion was removing). */
  stop?: Timed;
  /** ms after the deletion was sent that the stop was; and whether that was before the deletion answered. */
  stopSentAtMs?: number;
  landed: boolean;
  problems: string[];
}

export interface Stopper {
  /** prepare + activate of a new revision of a quiet sibling, then of the stopper. */
  quietRedeploy?: Timed;
  redeploy?: Timed;
  /** Processes of the stopper's UID outside its unit after the redeploy, then any left once its unit stopped: `pid stat args`. */
  strays: string[];
  leftAfterStop: string[];
  problems: string[];
}

export interface JournalFlood {
  entryMiB: number;
  idle?: LatencySample;
  flooded?: LatencySample;
  /** Entries of entryMiB MiB the flooder had started, and finished, sending when the sampling ended. */
  entriesStarted: number;
  entriesSent: number;
  problems: string[];
}

export interface LatencySample {
  requests: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
}

export interface PressureResults {
  planted?: PlantedNames;
  stopper?: Stopper;
  flood?: JournalFlood;
  durationMs?: number;
}

export interface TenantsResult {
  /** What was planned: trials of each kind and the size of the planted trees. */
  plan: { lockTrials: number; trickleTrials: number; treeDepth: number; treeFiles: number; plantedNames: number; floodEntryMiB: number; floodSampleMs: number };
  bounds: TenantBounds;
  /** The lock trial's calls beside the holder's gateway before it attacks: their bounds scale with these (absent in results of earlier campaigns). */
  lockCalm?: Timed[];
  lock: LockTrial[];
  trickle: TrickleTrial[];
  forgedAudit?: ForgedAudit;
  hugeTrees?: HugeTrees;
  placeholders?: PlaceholderReaders;
  /** The host-pressure attacks: planted names during deletion, the stopper, the journal flood. */
  pressure?: PressureResults;
  /** An attack that could not be set up or run: its targets are not met. */
  problems: string[];
  durationMs: number;
}

/** Inode and mode: the owner may read as nobody inside a user namespace (PrivateUsers=) and still be the real thing. */
const identity = (stat: string) => stat.split(' ').slice(0, 2).join(' ');

/** Judges each probe a gateway made against what root sees of the same path. */
export function visibilityRows(gateway: string, probes: readonly Probe[], inside: readonly Seen[], real: readonly Seen[]): VisibilityRow[] {
  return probes.map((probe) => {
    const seen = inside.find((entry) => entry.path === probe.path);
    const truth = real.find((entry) => entry.path === probe.path);
    if (!seen) return { gateway, path: probe.path, category: probe.category, revealed: true, seen: 'not probed (the attacker wrote nothing for it)' };
    const reasons: string[] = [];
    if (probe.judgeStat && seen.stat !== undefined && truth?.stat !== undefined && identity(seen.stat) === identity(truth.stat)) reasons.push('stat shows the real inode');
    const leaked = (seen.list ?? []).filter((name) => !probe.ownWay.includes(name) && (truth?.list ?? []).includes(name));
    if (leaked.length > 0) reasons.push(`lists ${leaked.slice(0, 5).join(', ')}${leaked.length > 5 ? ` and ${leaked.length - 5} more` : ''}`);
    const plain = [seen.statError ? `stat ${seen.statError}` : seen.stat === undefined ? '' : 'stat ok', seen.listError ? `list ${seen.listError}` : seen.list ? `list ${seen.list.length}` : '']
      .filter(Boolean)
      .join(', ');
    return { gateway, path: probe.path, category: probe.category, revealed: reasons.length > 0, seen: reasons.length > 0 ? reasons.join('; ') : plain };
  });
}

/** Splits a reader's dump into its sections (`== name` lines). */
export function readerSections(text: string): { name: string; text: string }[] {
  const sections: { name: string; text: string }[] = [];
  for (const line of text.split('\n')) {
    const header = /^== (.+)$/.exec(line);
    if (header) sections.push({ name: header[1]!, text: '' });
    else if (sections.length > 0) sections[sections.length - 1]!.text += `${line}\n`;
  }
  return sections;
}

/** The longest silence between heartbeats: between two arrivals, and from the last one (or the start, if none came) to the end. */
export function longestGap(arrivals: readonly number[], startedAt: number, endedAt: number): number {
  if (arrivals.length === 0) return endedAt - startedAt;
  let gap = endedAt - arrivals[arrivals.length - 1]!;
  for (let index = 1; index < arrivals.length; index += 1) gap = Math.max(gap, arrivals[index]! - arrivals[index - 1]!);
  return gap;
}

/** `ok (1.2 s)` or `lock-timeout after 30.1 s`: a call's line in a target's detail. */
export function describeCall(call: Timed): string {
  const seconds = `${(call.ms / 1000).toFixed(1)} s`;
  return `${call.who} ${call.operation} ${call.ok ? `ok in ${seconds}` : `${call.code ?? 'failed'} after ${seconds}`}`;
}
