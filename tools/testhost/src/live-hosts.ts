// Hosts this process started: torn down on exit, on SIGINT/SIGTERM/SIGHUP and on a crash.
import { signalStop, waitExitSync } from './nspawn.js';
import type { HostRecord } from './host-record.js';
import { releaseResourcesSync } from './teardown.js';

const live = new Map<string, HostRecord>();
let installed = false;

/** Stops all containers at once (each poweroff takes about a second), then releases the rest. */
function teardownAllSync(): void {
  const hosts = [...live.values()];
  live.clear();
  for (const h of hosts) signalStop(h.name, h.nspawn);
  for (const h of hosts) {
    if (h.nspawn && !waitExitSync(h.nspawn, 20_000)) {
      signalStop(h.name, h.nspawn, 'SIGKILL');
      waitExitSync(h.nspawn, 5_000);
    }
  }
  for (const h of hosts) {
    try {
      const problems = releaseResourcesSync(h);
      if (problems.length) process.stderr.write(`[testhost] ${h.name}: ${problems.join('; ')}\n`);
    } catch (e) {
      process.stderr.write(`[testhost] teardown of ${h.name} failed: ${(e as Error).message}\n`);
    }
  }
}

const SIGNALS: ReadonlyArray<[NodeJS.Signals, number]> = [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
];

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', teardownAllSync);
  for (const [signal, number] of SIGNALS) {
    process.on(signal, () => {
      if (live.size > 0) process.stderr.write(`[testhost] ${signal}: tearing down ${live.size} host(s)\n`);
      teardownAllSync();
      process.exit(128 + number);
    });
  }
}

export function track(rec: HostRecord): void {
  install();
  live.set(rec.name, rec);
}

/** Keeps the in-memory record current, e.g. once the nspawn pid is known. */
export function retrack(rec: HostRecord): void {
  if (live.has(rec.name)) live.set(rec.name, rec);
}

export function untrack(name: string): void {
  live.delete(name);
}
