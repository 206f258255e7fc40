// Takes a host apart: container, overlay mount, network, cgroups, slot and state directory.
import { readClaim, releaseClaim, removeTreeSync } from './claims.js';
import { runSync } from './command.js';
import { hostCpuSeconds, removeHostCgroups } from './cgroups.js';
import { hostFiles, slotDir, type HostRecord, type SlotRecord } from './host-record.js';
import { isMounted } from './mountinfo.js';
import { deleteNetworkSync } from './network.js';
import { stopNspawn } from './nspawn.js';
import { sleepSync } from './process-identity.js';
import { releaseTestRange } from './test-range.js';

function unmountSync(dir: string): string[] {
  for (let attempt = 0; isMounted(dir); attempt++) {
    // Right after the container exits its last processes may still hold the mount for a moment.
    const r = runSync('umount', attempt < 20 ? [dir] : ['-l', dir]);
    if (r.code === 0) continue;
    if (attempt > 20) return [`umount ${dir}: ${r.stderr.trim()}`];
    sleepSync(100);
  }
  return [];
}

/** Everything after the container has stopped; idempotent, and sync so an exit handler can run it. */
export function releaseResourcesSync(rec: HostRecord): string[] {
  const f = hostFiles(rec.name);
  const problems = [...unmountSync(f.root), ...deleteNetworkSync(rec.name), ...removeHostCgroups(rec.name)];
  if (isMounted(f.root)) return [...problems, `${f.root} is still mounted; state kept`];
  if (rec.index !== undefined) {
    const slot = readClaim(slotDir(rec.index)) as SlotRecord | undefined;
    if (slot?.name === rec.name) releaseClaim(slotDir(rec.index));
  }
  // Whatever a test planted in the host lives in upper/; while any of it is left the claim stays, so reap tries again.
  const left = [f.upper, f.work, f.root].map(removeTreeSync).filter((problem) => problem !== null);
  if (left.length > 0) return [...problems, ...left, `${f.dir} kept`];
  releaseClaim(f.dir);
  return [...problems, ...releaseTestRange()];
}

function report(name: string, problems: string[]): void {
  if (problems.length > 0) throw new Error(`teardown of ${name} left something behind:\n${problems.join('\n')}`);
}

/** Stops and removes the host; returns the CPU seconds it used over its life, where that is known. */
export async function downHost(rec: HostRecord): Promise<number | undefined> {
  await stopNspawn(rec.name, rec.nspawn);
  // Read before its cgroups go, and after the container stopped, so its shutdown counts too.
  const cpuSeconds = hostCpuSeconds(rec.name);
  report(rec.name, releaseResourcesSync(rec));
  return cpuSeconds;
}
