// Removes what crashed runs left behind: only hosts, slots and kernel objects whose owner is gone.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { claimIsStale, readClaim, releaseClaim, removeStaleClaim, removeTreeSync, tryClaim } from './claims.js';
import { cgroupParents, removeHostCgroups } from './cgroups.js';
import { runSync } from './command.js';
import { readHostRecord, type HostRecord, type SlotRecord } from './host-record.js';
import { currentMounts } from './mountinfo.js';
import { deleteNetworkSync } from './network.js';
import { stopNspawn } from './nspawn.js';
import { layout, HOST_NAME_PATTERN, workDir } from './paths.js';
import { isAlive, refOf, selfRef, type ProcessRef } from './process-identity.js';
import { releaseResourcesSync } from './teardown.js';
import { releaseTestRange, TEST_RANGE, testRangeRouted } from './test-range.js';

const list = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** The folders in a cgroup folder: a v1 hierarchy's control files (`tasks` among them) match a host's name pattern too. */
const subfolders = (dir: string) => {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
};

/** Tears down one dead host; a breaker claim keeps two reapers from doing it at once. */
export async function reapHost(name: string, me: ProcessRef = selfRef()): Promise<boolean> {
  const dir = layout.hostDir(name);
  if (!claimIsStale(dir)) return false;
  const breaker = `${dir}.break`;
  if (!tryClaim(breaker, { owner: me })) {
    if (claimIsStale(breaker)) releaseClaim(breaker);
    return false;
  }
  try {
    if (!claimIsStale(dir)) return false;
    const rec: HostRecord = readHostRecord(name) ?? { owner: { pid: 0, start: 0 }, name, variant: 'base' };
    await stopNspawn(name, rec.nspawn);
    // Releases the claim too, unless the overlay is stuck mounted: then the state stays for a later try.
    const problems = releaseResourcesSync(rec);
    if (problems.length) process.stderr.write(`[testhost] reap ${name}: ${problems.join('; ')}\n`);
    return problems.length === 0;
  } finally {
    releaseClaim(breaker);
  }
}

const slotRecords = () =>
  list(layout.slots())
    .filter((s) => /^\d+$/.test(s))
    .map((s) => ({ slot: s, rec: readClaim(path.join(layout.slots(), s)) as SlotRecord | undefined }));

/** Slots are machine-wide; each work dir reaps only its own and leaves another's leftovers to it. */
const isOurs = (rec: SlotRecord | undefined) => rec !== undefined && (rec.workDir === undefined || rec.workDir === workDir());

/** Names that are not ours to touch: live here, or claimed (live or not) from another work dir. */
function protectedNames(): Set<string> {
  const here = list(layout.hosts()).filter((n) => HOST_NAME_PATTERN.test(n) && !claimIsStale(layout.hostDir(n)));
  const elsewhere = slotRecords()
    .filter(({ rec }) => rec?.name !== undefined && (isAlive(rec.owner) || !isOurs(rec)))
    .map(({ rec }) => rec?.name ?? '');
  return new Set([...here, ...elsewhere]);
}

/** A kernel object named like ours: the host name it belongs to, and how to remove it. */
interface KernelObject {
  name: string;
  what: string;
  remove: () => boolean;
}

function kernelObjects(): KernelObject[] {
  const found: KernelObject[] = [];
  for (const m of currentMounts()) {
    const rel = path.relative(layout.hosts(), m.mountPoint).split(path.sep);
    if (m.fsType === 'overlay' && rel.length === 2 && rel[1] === 'root' && rel[0]) {
      found.push({ name: rel[0], what: `mount ${m.mountPoint}`, remove: () => runSync('umount', [m.mountPoint]).code === 0 });
    }
  }
  for (const ns of list('/run/netns')) {
    const name = /^occth-(.+)$/.exec(ns)?.[1];
    if (name) found.push({ name, what: `netns ${ns}`, remove: () => deleteNetworkSync(name).length === 0 });
  }
  // A veth outlives its netns only while something still holds that netns; ours carry a 10.213.x.1 address.
  for (const link of list('/sys/class/net')) {
    const name = /^ve-(.+)$/.exec(link)?.[1];
    if (!name || !/ inet 10\.213\.\d+\.1\//.test(runSync('ip', ['-o', '-4', 'addr', 'show', 'dev', link]).stdout)) continue;
    found.push({ name, what: `veth ${link}`, remove: () => runSync('ip', ['link', 'del', link]).code === 0 });
  }
  for (const root of cgroupParents()) {
    // A file there taken for a host made reap retry its removal for 46 s (as a folder: ENOTDIR) every run.
    for (const name of subfolders(root)) {
      if (HOST_NAME_PATTERN.test(name)) found.push({ name, what: `cgroup ${path.join(root, name)}`, remove: () => removeHostCgroups(name).length === 0 });
    }
  }
  return found;
}

/**
 * Kernel objects named like ours whose host no longer exists (e.g. the record was deleted by hand).
 * Listed first and judged after: a booting host claims its name before it makes any of them, so an
 * object seen here whose name is still unclaimed afterwards has no host. Judged the other way round,
 * a host that claimed and made an object in between would lose it while it boots.
 */
function reapOrphans(removed: string[]): void {
  const found = kernelObjects();
  const live = protectedNames();
  for (const object of found) if (!live.has(object.name) && object.remove()) removed.push(object.what);
}

/** Claim and tombstone directories are named .<tag>-<pid>-<random>; those of dead pids are debris. */
function reapDebris(dir: string, removed: string[]): void {
  for (const e of list(dir)) {
    const m = /^\.(claim|released)-(\d+)-/.exec(e);
    if (m?.[2] && !isAlive(refOf(Number(m[2])))) {
      const problem = removeTreeSync(path.join(dir, e));
      if (problem) process.stderr.write(`[testhost] reap: ${problem}\n`);
      else removed.push(`debris ${path.join(dir, e)}`);
    }
  }
}

export async function reapTestHosts(): Promise<{ removed: string[] }> {
  const me = selfRef();
  const removed: string[] = [];
  for (const name of list(layout.hosts())) {
    if (HOST_NAME_PATTERN.test(name) && (await reapHost(name, me))) removed.push(`host ${name}`);
  }
  for (const { slot, rec } of slotRecords()) {
    if (isOurs(rec) && removeStaleClaim(path.join(layout.slots(), slot), me)) removed.push(`slot ${slot}`);
  }
  reapOrphans(removed);
  for (const dir of [layout.hosts(), layout.slots(), layout.locks()]) reapDebris(dir, removed);
  const routed = testRangeRouted();
  const problems = releaseTestRange();
  if (problems.length) process.stderr.write(`[testhost] reap: ${problems.join('; ')}\n`);
  else if (routed && !testRangeRouted()) removed.push(`route unreachable ${TEST_RANGE}`);
  return { removed };
}
