// Brings one host up: claims a name and address slot, prepares its root and network, boots it.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { claimIsStale, releaseClaim, tryClaim, updateClaim } from './claims.js';
import { createHostCgroups } from './cgroups.js';
import { log } from './command.js';
import { hostFiles, readHostRecord, slotDir, writeHostRecord, type HostRecord } from './host-record.js';
import { mountOverlay, writeIdentity } from './host-root.js';
import { ensureClientKey } from './keys.js';
import { raiseInotifyLimits } from './machine-limits.js';
import { retrack, track, untrack } from './live-hosts.js';
import { createNetwork, linkExists, netnsExists, subnetInUse } from './network.js';
import { isRunning, launchNspawn } from './nspawn.js';
import { addressesFor, assertHostName, hostObjects, layout, workDir } from './paths.js';
import { selfRef, type ProcessRef } from './process-identity.js';
import { holdTestRange } from './test-range.js';
import { reapHost } from './reap.js';
import { waitForSsh } from './ready.js';
import { ensureRootfs } from './rootfs.js';
import type { ImageChoice, Variant } from './recipe.js';
import type { SshTarget } from './ssh.js';
import { downHost } from './teardown.js';

export interface BootOptions {
  name?: string;
  variant?: Variant;
  /** Debian release and Node line; by default from OCC_TESTHOST_DEBIAN and OCC_TESTHOST_NODE. */
  image?: ImageChoice;
  /** For `testhost up`: once booted, the host belongs to its own nspawn process and outlives the caller. */
  persistent?: boolean;
}

/** A netns or veth of that name without a claim here belongs to another work dir or to debris. */
const kernelObjectsExist = (name: string) => netnsExists(hostObjects(name).netns) || linkExists(hostObjects(name).veth);

async function claimName(name: string, me: ProcessRef, variant: Variant): Promise<void> {
  assertHostName(name);
  const record: HostRecord = { owner: me, name, variant };
  if (tryClaim(layout.hostDir(name), { ...record })) {
    if (!kernelObjectsExist(name)) return;
    releaseClaim(layout.hostDir(name));
    throw new Error(`netns or veth for test host ${name} already exists (another work dir, or run reap)`);
  }
  // A leftover of a crashed run with the same name is cleared; a live host keeps its name.
  if (claimIsStale(layout.hostDir(name)) && (await reapHost(name, me)) && tryClaim(layout.hostDir(name), { ...record })) return;
  const holder = readHostRecord(name);
  throw new Error(`test host name ${name} is in use (owner pid ${holder?.owner.pid ?? '?'}); pick another or run reap`);
}

/** The claim makes the slot ours; the kernel check skips a subnet something else already uses. */
function claimSlot(me: ProcessRef, name: string | undefined): number {
  for (let index = 1; index <= 254; index++) {
    if (!tryClaim(slotDir(index), { owner: me, workDir: workDir(), ...(name === undefined ? {} : { name }) })) continue;
    if (!subnetInUse(index)) {
      holdTestRange();
      return index;
    }
    releaseClaim(slotDir(index));
  }
  throw new Error('all 254 test host address slots are taken; run reap or stop some hosts');
}

/**
 * Default names carry the slot (th7-… lives at 10.213.7.2) plus a random tag, so a name is not
 * reused by the next process that gets the same slot: leftovers stay attributable to one host.
 */
function claimDefaultName(index: number, me: ProcessRef, variant: Variant): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const name = `th${index}-${randomBytes(2).toString('hex')}`;
    if (kernelObjectsExist(name)) continue;
    if (tryClaim(layout.hostDir(name), { owner: me, name, variant, index })) {
      updateClaim(slotDir(index), { owner: me, name, workDir: workDir() });
      return name;
    }
  }
  throw new Error(`could not find a free name for slot ${index}`);
}

/** A unix socket path holds 107 bytes, and ssh binds `<path>.<16 random>` before renaming it into place. */
const MAX_CONTROL_PATH = 107 - 17;

function targetOf(rec: HostRecord, identityFile: string): SshTarget {
  if (rec.index === undefined) throw new Error(`host ${rec.name} has no slot`);
  // In the host's own directory, so its teardown removes a socket a killed master left behind.
  const controlPath = path.join(layout.hostDir(rec.name), 'mux');
  return {
    address: addressesFor(rec.index).host,
    port: 22,
    user: 'root',
    identityFile,
    knownHostsFile: hostFiles(rec.name).knownHosts,
    ...(controlPath.length <= MAX_CONTROL_PATH ? { controlPath } : {}),
  };
}

export async function bootHost(opts: BootOptions = {}): Promise<{ rec: HostRecord; target: SshTarget; ms: number }> {
  const variant = opts.variant ?? 'base';
  const rootfs = await ensureRootfs(variant, opts.image);
  const client = await ensureClientKey();
  raiseInotifyLimits();
  const me = selfRef();
  const started = Date.now();
  if (opts.name !== undefined) await claimName(opts.name, me, variant);
  let index: number;
  let name: string;
  try {
    index = claimSlot(me, opts.name);
  } catch (e) {
    if (opts.name !== undefined) releaseClaim(layout.hostDir(opts.name));
    throw e;
  }
  try {
    name = opts.name ?? claimDefaultName(index, me, variant);
  } catch (e) {
    releaseClaim(slotDir(index));
    throw e;
  }
  let rec: HostRecord = { owner: me, name, index, variant, lowerDir: rootfs.path };
  writeHostRecord(rec);
  // Tracked from here on, so an interrupt mid-boot still takes apart whatever exists so far.
  track(rec);
  const target = targetOf(rec, client.identityFile);
  try {
    await mountOverlay(name, rootfs.path);
    await writeIdentity(name, target.address, client);
    await createNetwork(name, index);
    rec = { ...rec, nspawn: launchNspawn(name, createHostCgroups(name)) };
    writeHostRecord(rec);
    retrack(rec);
    await waitForSsh(target, () => isRunning(name, rec.nspawn));
  } catch (e) {
    const consoleLog = await readFile(hostFiles(name).console, 'utf8').catch(() => '');
    untrack(name);
    await downHost(rec).catch((err: Error) => log(err.message));
    const tail = consoleLog.trim().split('\n').slice(-20).join('\n');
    throw new Error(`test host ${name} failed to boot: ${(e as Error).message}${tail ? `\nconsole:\n${tail}` : ''}`, { cause: e });
  }
  const container = rec.nspawn;
  if (opts.persistent && container) {
    rec = { ...rec, owner: container };
    writeHostRecord(rec);
    updateClaim(slotDir(index), { owner: container, name, workDir: workDir() });
    untrack(name);
  }
  const ms = Date.now() - started;
  log(`${name} up at ${target.address} in ${ms} ms`);
  return { rec, target, ms };
}
