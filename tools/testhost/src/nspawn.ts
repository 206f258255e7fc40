// Starts, stops and waits for the systemd-nspawn process that runs a host.
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { start } from '@occ-ssh/ssh-client';
import { toolEnv } from './command.js';
import { hostFiles } from './host-record.js';
import { hostObjects } from './paths.js';
import { isAlive, isOurNspawn, refOf, sleep, sleepSync, type ProcessRef } from './process-identity.js';

/**
 * Joins the cgroup files given before `--`, then execs the rest. It must happen before exec: this
 * machine has no systemd to hand nspawn a unit, so without it all containers share one cgroup.
 * The script is a constant; every path and argument arrives as a positional parameter.
 */
const LAUNCHER = 'while [ "$#" -gt 0 ] && [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

export function nspawnArgs(name: string, root: string): string[] {
  return [
    '-b',
    '-D',
    root,
    // No machined or system bus here: without these two, nspawn fails with "Failed to open system bus".
    '--register=no',
    '--keep-unit',
    '-M',
    name,
    `--network-namespace-path=/run/netns/${hostObjects(name).netns}`,
    '--resolv-conf=off',
    '--console=read-only',
  ];
}

/** Launches nspawn detached in its own session, so it outlives `testhost up` and ignores the caller's ^C. */
export function launchNspawn(name: string, cgroupDirs: readonly string[]): ProcessRef {
  const f = hostFiles(name);
  const out = openSync(f.console, 'a');
  try {
    const procsFiles = cgroupDirs.map((d) => path.join(d, 'cgroup.procs'));
    const { child } = start('sh', ['-c', LAUNCHER, 'occ-testhost-launch', ...procsFiles, '--', 'systemd-nspawn', ...nspawnArgs(name, f.root)], { detached: true, env: toolEnv(), outputFd: out });
    if (child.pid === undefined) throw new Error('could not start systemd-nspawn');
    // Return only once the launcher has exec'd, so a stop right away still finds an nspawn to signal.
    const ref = refOf(child.pid);
    for (let i = 0; i < 100 && ref && isAlive(ref) && !isRunning(name, ref); i++) sleepSync(10);
    if (!ref || !isRunning(name, ref)) throw new Error(`systemd-nspawn for ${name} did not start; see ${f.console}`);
    return ref;
  } finally {
    closeSync(out);
  }
}

export function isRunning(name: string, ref: ProcessRef | undefined): boolean {
  return isOurNspawn(ref, hostFiles(name).root, name);
}

export async function waitExit(ref: ProcessRef, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(ref)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

export function waitExitSync(ref: ProcessRef, timeoutMs: number): boolean {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(ref)) {
    if (Date.now() > deadline) return false;
    sleepSync(50);
  }
  return true;
}

/** SIGTERM makes nspawn power the container off in order; only a verified nspawn of ours is signalled. */
export function signalStop(name: string, ref: ProcessRef | undefined, signal: NodeJS.Signals = 'SIGTERM'): boolean {
  if (!ref || !isRunning(name, ref)) return false;
  try {
    process.kill(ref.pid, signal);
    return true;
  } catch {
    return false;
  }
}

export async function stopNspawn(name: string, ref: ProcessRef | undefined): Promise<void> {
  if (!signalStop(name, ref) || !ref) return;
  if (await waitExit(ref, 20_000)) return;
  signalStop(name, ref, 'SIGKILL');
  await waitExit(ref, 5_000);
}
