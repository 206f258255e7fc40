// systemctl steps for one gateway unit. A job handed to systemd completes even if we stop.
import { constants } from 'node:os';
import { beforeChange } from '../run/change-guard.js';
import { systemctlArgv, type SystemctlRequest } from '../run/commands.js';
import { mustRun, type CommandResult, type HostRunner } from '../run/system.js';

const SYSTEMCTL_TIMEOUT_MS = 90_000;
/** A read-only query: callers with less time left (a readiness wait, inventory) pass their own bound. */
const QUERY_TIMEOUT_MS = 30_000;

const systemctl = (runner: HostRunner, request: SystemctlRequest, timeoutMs?: number): Promise<CommandResult> => runner.run(systemctlArgv(request), timeoutMs === undefined ? {} : { timeoutMs });
const mustSystemctl = (runner: HostRunner, request: SystemctlRequest) => mustRun(runner, systemctlArgv(request), SYSTEMCTL_TIMEOUT_MS);
const show = async (runner: HostRunner, unit: string, properties: readonly string[], timeoutMs: number) => {
  const result = await systemctl(runner, { verb: 'show', unit, properties }, timeoutMs);
  return { code: result.code, value: (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(result.stdout)?.[1]?.trim() ?? '' };
};

export const daemonReload = (runner: HostRunner) => (beforeChange(), mustSystemctl(runner, { verb: 'daemon-reload' }));

/**
 * After a new unit was started without a reload: systemd 252 is content, but later ones (257) then
 * mark every unit on the host as needing a reload (`systemctl status` warns about each) until the
 * next one. Run outside the host lock, so its cost, which grows with the host's unit count, is no
 * sibling's wait; skipped when another reload already cleared the mark. Best effort: a mark left
 * behind is the next activation's reload.
 */
export async function clearReloadMark(runner: HostRunner, unit: string): Promise<void> {
  const { code, value } = await show(runner, unit, ['NeedDaemonReload'], QUERY_TIMEOUT_MS);
  if (code !== 0 || value('NeedDaemonReload') !== 'yes') return;
  beforeChange();
  await systemctl(runner, { verb: 'daemon-reload' }, SYSTEMCTL_TIMEOUT_MS);
}
/**
 * Queues the restart as a systemd job and returns: stopping the old process, which a gateway that
 * ignores SIGTERM stretches to TimeoutStopSec, is systemd's work and never waited for under the host
 * lock; the readiness wait follows the job (the unit's Job and InvocationID) outside it. An activation
 * is an explicit request, not a crash loop: a failed unit is reset first. A job that could not be
 * queued is queued once more after a reset-failed; one the start rate limit (by default 5 starts in
 * 10 s) refuses ends without a new start, which the wait reports (activate-revision.ts resets and
 * queues it again, once).
 */
export async function restartUnit(runner: HostRunner, unit: string, failed: boolean): Promise<void> {
  beforeChange();
  if (failed) await systemctl(runner, { verb: 'reset-failed', unit }, SYSTEMCTL_TIMEOUT_MS);
  if ((await systemctl(runner, { verb: 'restart', unit }, SYSTEMCTL_TIMEOUT_MS)).code === 0) return;
  await systemctl(runner, { verb: 'reset-failed', unit }, SYSTEMCTL_TIMEOUT_MS);
  await mustSystemctl(runner, { verb: 'restart', unit });
}
/**
 * Only the symlinks: the caller runs the one daemon-reload (enable would run its own). By absolute
 * path, so a unit kept outside systemd's load path gets its load-path link too; inside it, enabling
 * by path makes the same wants link as by name.
 */
export const enableUnit = (runner: HostRunner, unitFile: string) => (beforeChange(), mustSystemctl(runner, { verb: 'enable', path: unitFile }));
/** The load-path link alone (`systemctl link`), without the reload it would run. */
export const linkUnit = (runner: HostRunner, unitFile: string) => (beforeChange(), mustSystemctl(runner, { verb: 'link', path: unitFile }));

/**
 * What activation reads of a unit before it restarts it, in one `systemctl show`. Not whether it is
 * enabled: systemd caches UnitFileState until the next reload, so a wants link removed by hand still
 * reads `enabled` there; `is-enabled` reads the disk.
 */
interface UnitFacts {
  /**
   * systemd has the unit loaded (anything but `not-found`). One it has not is read from its file when
   * first started: systemd rebuilds its unit file cache once a load path directory changed (since 247),
   * so a new unit needs no daemon-reload before its start.
   */
  loaded: boolean;
  /** The unit file on disk differs from what systemd loaded (e.g. a reload was cut short). */
  needsReload: boolean;
  /** Failed, or its last start was refused (the start rate limit). */
  failed: boolean;
  /** systemd's ID of the unit's current or last run (empty for a unit never started): a restart makes a new one. */
  invocation: string;
}

export async function unitFacts(runner: HostRunner, unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<UnitFacts> {
  const { code, value } = await show(runner, unit, ['LoadState', 'NeedDaemonReload', 'ActiveState', 'Result', 'InvocationID'], timeoutMs);
  return {
    loaded: code !== 0 || value('LoadState') !== 'not-found',
    needsReload: code !== 0 || value('NeedDaemonReload') !== 'no',
    failed: code !== 0 || value('ActiveState') === 'failed' || !['success', ''].includes(value('Result')),
    invocation: value('InvocationID'),
  };
}

/**
 * Stops and disables; a unit systemd does not know is already stopped. The stop is waited for once:
 * when `disable --now` fails, a plain stop follows only if the unit is still running. A stop that
 * timed out (processes in uninterruptible sleep outlasting TimeoutStopSec and SIGKILL) leaves the
 * unit failed, and stopping it again would wait the whole bound a second time under the host lock.
 */
export async function stopAndDisable(runner: HostRunner, unit: string): Promise<void> {
  beforeChange();
  const disabled = await systemctl(runner, { verb: 'disable-now', unit }, SYSTEMCTL_TIMEOUT_MS);
  if (disabled.code !== 0 && (await isRunning(runner, unit))) await mustSystemctl(runner, { verb: 'stop', unit });
  // A gateway that needed SIGKILL leaves the unit `failed`; a deliberate stop should read as inactive.
  await systemctl(runner, { verb: 'reset-failed', unit });
}

/** Running or on its way (a unit systemd does not know reads `inactive`); failed and inactive units are not. */
async function isRunning(runner: HostRunner, unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<boolean> {
  const result = await systemctl(runner, { verb: 'show', unit, properties: ['ActiveState'], value: true }, timeoutMs);
  return result.code === 0 && ['active', 'activating', 'deactivating', 'reloading'].includes(result.stdout.trim());
}

export async function isActive(runner: HostRunner, unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<boolean> {
  return (await systemctl(runner, { verb: 'is-active', unit }, timeoutMs)).code === 0;
}

export async function isEnabled(runner: HostRunner, unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<boolean> {
  return (await systemctl(runner, { verb: 'is-enabled', unit }, timeoutMs)).code === 0;
}

/** What inventory shows of one unit, and where its processes are (for the listener check). */
export interface UnitStatus {
  activeState: string;
  memoryBytes: number | null;
  restarts: number | null;
  controlGroup: string;
  mainPid: number;
}

/**
 * The ActiveState of every unit systemd has loaded whose name matches `pattern`, in one `systemctl
 * list-units`: systemd answers it from memory (about 30 ms for 1,000 units on a test host, where
 * `show` costs about 3.5 ms a unit). A unit it has not loaded is absent, and inactive. Null when the
 * answer cannot be had or read.
 */
export async function loadedStates(runner: HostRunner, pattern: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<Map<string, string> | null> {
  const result = await systemctl(runner, { verb: 'list-units', pattern }, timeoutMs).catch(() => undefined);
  if (result?.code !== 0) return null;
  try {
    const units = JSON.parse(result.stdout) as { unit?: unknown; active?: unknown }[];
    return new Map(units.flatMap(({ unit, active }) => (typeof unit === 'string' && typeof active === 'string' ? [[unit, active] as const] : [])));
  } catch {
    return null;
  }
}

/** Units asked about in one `systemctl show`: its argv stays short, and its answer about 300 bytes a unit. */
const UNITS_PER_SHOW = 100;
const STATUS_PROPERTIES = ['Id', 'ActiveState', 'MemoryCurrent', 'NRestarts', 'ControlGroup', 'MainPID'] as const;

/**
 * ActiveState, MemoryCurrent (null when systemd accounts none: `[not set]` or the all-ones "infinity"),
 * NRestarts, ControlGroup and MainPID of many units, by name: one `systemctl show` per hundred units,
 * not one per unit, so a host's status costs a few processes whatever its number of Agents. A unit
 * whose block is missing or cut short by `timeoutMs` is absent from the answer.
 */
export async function unitStatuses(runner: HostRunner, units: readonly string[], timeoutMs = QUERY_TIMEOUT_MS): Promise<Map<string, UnitStatus>> {
  const deadline = Date.now() + timeoutMs;
  const found = new Map<string, UnitStatus>();
  for (let i = 0; i < units.length; i += UNITS_PER_SHOW) {
    const chunk = units.slice(i, i + UNITS_PER_SHOW);
    const result = await systemctl(runner, { verb: 'show', unit: chunk, properties: STATUS_PROPERTIES }, Math.max(1, deadline - Date.now())).catch(() => undefined);
    if (!result) break;
    for (const [id, status] of parseStatuses(result.stdout)) if (chunk.includes(id)) found.set(id, status);
  }
  return found;
}

/** The blocks of a multi-unit `systemctl show`, by Id. */
export function parseStatuses(text: string): Map<string, UnitStatus> {
  const count = (value: string | undefined) => (value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : null);
  const statuses = new Map<string, UnitStatus>();
  for (const block of text.split(/\n\s*\n/)) {
    const values = new Map(block.split('\n').flatMap((line) => (line.includes('=') ? [[line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).trim()] as const] : [])));
    const id = values.get('Id');
    if (!id) continue;
    statuses.set(id, {
      activeState: values.get('ActiveState') || 'unknown',
      memoryBytes: count(values.get('MemoryCurrent')),
      restarts: count(values.get('NRestarts')),
      controlGroup: values.get('ControlGroup') ?? '',
      mainPid: count(values.get('MainPID')) ?? 0,
    });
  }
  return statuses;
}

/** systemd's view of a gateway's run: enough to tell a crash loop from a slow start, and nothing of its logs. */
export interface UnitRun {
  activeState: string;
  result: string;
  restarts: number;
  /** The main process's last exit as systemd records it, e.g. `exit status 3`; none while it runs. */
  exit: string | undefined;
  /** The run's InvocationID, and whether a job (a queued restart) is still pending for the unit. */
  invocation: string;
  jobPending: boolean;
}

export async function unitRun(runner: HostRunner, unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<UnitRun> {
  const { value } = await show(runner, unit, ['ActiveState', 'Result', 'NRestarts', 'ExecMainCode', 'ExecMainStatus', 'InvocationID', 'Job'], timeoutMs);
  return {
    activeState: value('ActiveState') || 'unknown',
    result: value('Result') || 'unknown',
    restarts: Number(value('NRestarts')) || 0,
    exit: describeExit(Number(value('ExecMainCode')), Number(value('ExecMainStatus'))),
    invocation: value('InvocationID'),
    jobPending: value('Job') !== '',
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
export async function unitProcesses(runner: HostRunner, unit: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<{ controlGroup: string; mainPid: number; invocation: string }> {
  const { value } = await show(runner, unit, ['ControlGroup', 'MainPID', 'InvocationID'], timeoutMs);
  return { controlGroup: value('ControlGroup'), mainPid: Number(value('MainPID')) || 0, invocation: value('InvocationID') };
}
