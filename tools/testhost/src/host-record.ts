// What is recorded on disk about a host, so teardown and reap work from any process.
import path from 'node:path';
import { readClaim, updateClaim } from './claims.js';
import { layout } from './paths.js';
import type { ProcessRef } from './process-identity.js';
import type { Variant } from './recipe.js';

export interface HostRecord {
  /** Whose lifetime the host is tied to: the test process, or the container itself when started by `testhost up`. */
  owner: ProcessRef;
  name: string;
  index?: number;
  variant: Variant;
  lowerDir?: string;
  nspawn?: ProcessRef;
}

export interface SlotRecord {
  owner: ProcessRef;
  name?: string;
  workDir?: string;
}

export function hostFiles(name: string) {
  const dir = layout.hostDir(name);
  return {
    dir,
    root: path.join(dir, 'root'),
    upper: path.join(dir, 'upper'),
    work: path.join(dir, 'work'),
    knownHosts: path.join(dir, 'known_hosts'),
    console: path.join(dir, 'console.log'),
  };
}

export const slotDir = (index: number) => path.join(layout.slots(), String(index));

export function readHostRecord(name: string): HostRecord | undefined {
  return readClaim(layout.hostDir(name)) as HostRecord | undefined;
}

export function writeHostRecord(rec: HostRecord): void {
  updateClaim(layout.hostDir(rec.name), { ...rec });
}
