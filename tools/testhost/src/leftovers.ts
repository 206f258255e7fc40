// Lists what a host may leave behind on the machine, so tests can prove teardown removed it all.
import { existsSync, readdirSync } from 'node:fs';
import { hostCgroupDirs } from './cgroups.js';
import { readClaim } from './claims.js';
import { hostFiles, slotDir, type SlotRecord } from './host-record.js';
import { currentMounts } from './mountinfo.js';
import { linkExists, netnsExists } from './network.js';
import { hostObjects } from './paths.js';
import { cmdline } from './process-identity.js';

/** Processes whose command line mentions the host's root, e.g. its systemd-nspawn. */
function processesOf(root: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => cmdline(pid).some((arg) => arg.includes(root)));
}

export function leftoversOf(name: string, index?: number): string[] {
  const f = hostFiles(name);
  const o = hostObjects(name);
  return [
    ...currentMounts()
      .filter((m) => m.mountPoint.startsWith(f.dir))
      .map((m) => `mount ${m.mountPoint}`),
    ...(linkExists(o.veth) ? [`veth ${o.veth}`] : []),
    ...(netnsExists(o.netns) ? [`netns ${o.netns}`] : []),
    ...hostCgroupDirs(name)
      .filter((d) => existsSync(d))
      .map((d) => `cgroup ${d}`),
    ...processesOf(f.root).map((pid) => `process ${pid}: ${cmdline(pid).join(' ')}`),
    ...(existsSync(f.dir) ? [`dir ${f.dir}`] : []),
    // The slot may already serve someone else's new host; only a claim under this name is a leftover.
    ...(index !== undefined && (readClaim(slotDir(index)) as SlotRecord | undefined)?.name === name ? [`slot ${index}`] : []),
  ];
}
