// systemctl steps for one gateway unit. A job handed to systemd completes even if we stop.
import { constants } from 'node:os';
import { beforeChange } from './change-guard.js';
import { runCommand, mustRun } from './system.js';

const SYSTEMCTL_TIMEOUT_MS = 90_000;
/** A read-only query: callers with less time left (a readiness wait, inventory) pass their own bound. */
const QUERY_TIMEOUT_MS = 30_000;

export const daemonReload = () => (beforeChange(), mustRun('systemctl', ['daemon-reload'], SYSTEMCTL_TIMEOUT_MS));
/**
 * An activation is an explicit request, not a crash loop: a failed unit is reset first, and a
 * restart refused by the start rate limit (by default 5 starts in 10 s), which back-to-back
 * activations can reach before systemd shows it, is retried once after a reset-failed.
 */
export async function restartUnit(unit: string, failed: boolean): Promise<void> {
  beforeChange();
  if (failed) await runCommand('systemctl', ['reset-failed', unit], SYSTEMCTL_TIMEOUT_MS);
  if ((await runCommand('systemctl', ['restart', unit], SYSTEMCTL_TIMEOUT_MS)).code === 0) return;
  await runCommand('systemctl', ['reset-failed', unit], SYSTEMCTL_TIMEOUT_MS);
  await mustRun('systemctl', ['restart', unit], SYSTEMCTL_TIMEOUT_MS);
}
/**
 * Only the symlinks: the caller runs the one daemon-reload (enable would run its own). By absolute
 * path, so a unit kept outside systemd's load path gets its load-path link too; inside it, enabling
 * by path makes the same wants link as by name.
 */
export const enableUnit = (unitFile: string) => (beforeChange(), mustRun('systemctl', ['enable', '--quiet', '--no-reload', unitFile], SYSTEMCTL_TIMEOUT_MS));
/** The load-path link alone (`systemctl link`), without the reload it would run. */
export const linkUnit = (unitFile: string) => (beforeChange(), mustRun('systemctl', ['link', '--quiet', '--no-reload', unitFile], SYSTEMCTL_TIMEOUT_MS));

/**
 * What activation reads of a unit before it restarts it, in one `systemctl show`. Not whether it is
 * enabled: systemd caches UnitFileState until the next reload, so a wants link removed by hand still
 * reads `enabled` there; `is-enabled` reads the disk.
 */
interface UnitFacts {
  /** The unit file on disk differs from what systemd loaded (e.g. a reload was cut short). */
  needsReload: boolean;
  /** Failed, or its last start was refused (the start rate limit). */
  failed: boolean;
}

export async function unitFacts(unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<UnitFacts> {
  const result = await runCommand('systemctl', ['show', '--property=NeedDaemonReload,ActiveState,Result', unit], timeoutMs);
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(result.stdout)?.[1]?.trim() ?? '';
  return {
    needsReload: result.code !== 0 || value('NeedDaemonReload') !== 'no',
    failed: result.code !== 0 || value('ActiveState') === 'failed' || !['success', ''].includes(value('Result')),
  };
}

/** Stops and disables; a unit systemd does not know is already stopped. */
export async function stopAndDisable(unit: string): Promise<void> {
  beforeChange();
  await runCommand('systemctl', ['disable', '--now', '--quiet', unit], SYSTEMCTL_TIMEOUT_MS).then(async (result) => {
    if (result.code !== 0 && (await isKnown(unit))) await mustRun('systemctl', ['stop', unit], SYSTEMCTL_TIMEOUT_MS);
  });
  // A gateway that needed SIGKILL leaves the unit `failed`; a deliberate stop should read as inactive.
  await runCommand('systemctl', ['reset-failed', unit]);
}

async function isKnown(unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<boolean> {
  const result = await runCommand('systemctl', ['show', '--property=LoadState', '--value', unit], timeoutMs);
  return result.code === 0 && !['not-found', ''].includes(result.stdout.trim());
}

export async function isActive(unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<boolean> {
  return (await runCommand('systemctl', ['is-active', '--quiet', unit], timeoutMs)).code === 0;
}

export async function isEnabled(unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<boolean> {
  return (await runCommand('systemctl', ['is-enabled', '--quiet', unit], timeoutMs)).code === 0;
}

/** ActiveState, MemoryCurrent (null when systemd accounts none: `[not set]` or the all-ones "infinity") and NRestarts of a unit. */
export async function unitUsage(unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<{ activeState: string; memoryBytes: number | null; restarts: number | null }> {
  const result = await runCommand('systemctl', ['show', '--property=ActiveState,MemoryCurrent,NRestarts', unit], timeoutMs);
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(result.stdout)?.[1]?.trim() ?? '';
  const count = (text: string) => (/^\d{1,15}$/.test(text) ? Number(text) : null);
  return { activeState: value('ActiveState') || 'unknown', memoryBytes: count(value('MemoryCurrent')), restarts: count(value('NRestarts')) };
}

/** systemd's view of a gateway's run: enough to tell a crash loop from a slow start, and nothing of its logs. */
export interface UnitRun {
  activeState: string;
  result: string;
  restarts: number;
  /** The main process's last exit as systemd records it, e.g. `exit status 3`; none while it runs. */
  exit: string | undefined;
}

export async function unitRun(unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<UnitRun> {
  const result = await runCommand('systemctl', ['show', '--property=ActiveState,Result,NRestarts,ExecMainCode,ExecMainStatus', unit], timeoutMs);
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(result.stdout)?.[1]?.trim() ?? '';
  return {
    activeState: value('ActiveState') || 'unknown',
    result: value('Result') || 'unknown',
    restarts: Number(value('NRestarts')) || 0,
    exit: describeExit(Number(value('ExecMainCode')), Number(value('ExecMainStatus'))),
  };
}

/** ExecMainCode is the kernel's CLD_* code: 1 exited, 2 killed, 3 dumped core. */
export function describeExit(code: number, status: number): string | undefined {
  const signal = () => Object.entries(constants.signals).find(([, number]) => number === status)?.[0] ?? `signal ${status}`;
  if (code === 1) return `exit status ${status}`;
  if (code === 2) return `killed by ${signal()}`;
  if (code === 3) return `dumped core on ${signal()}`;
  return undefined;
}

/**
 * The unit's control group as systemd names it (e.g. /system.slice/x.service; empty when it has none)
 * and its main process (0 when none), which the listener check reads first.
 */
export async function unitProcesses(unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<{ controlGroup: string; mainPid: number }> {
  const result = await runCommand('systemctl', ['show', '--property=ControlGroup,MainPID', unit], timeoutMs);
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(result.stdout)?.[1]?.trim() ?? '';
  return { controlGroup: value('ControlGroup'), mainPid: Number(value('MainPID')) || 0 };
}
