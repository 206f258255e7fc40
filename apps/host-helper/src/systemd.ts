// systemctl steps for one gateway unit. A job handed to systemd completes even if we stop.
import { runCommand, mustRun } from './system.js';

const SYSTEMCTL_TIMEOUT_MS = 90_000;

export const daemonReload = () => mustRun('systemctl', ['daemon-reload'], SYSTEMCTL_TIMEOUT_MS);
/**
 * An activation is an explicit request, not a crash loop: reset-failed first clears the start rate
 * limit (by default 5 starts in 10 s), which back-to-back activations would otherwise hit.
 */
export async function restartUnit(unit: string): Promise<void> {
  await runCommand('systemctl', ['reset-failed', unit], SYSTEMCTL_TIMEOUT_MS);
  await mustRun('systemctl', ['restart', unit], SYSTEMCTL_TIMEOUT_MS);
}
/** Only the symlink: the caller runs the one daemon-reload (enable would run its own). */
export const enableUnit = (unit: string) => mustRun('systemctl', ['enable', '--quiet', '--no-reload', unit], SYSTEMCTL_TIMEOUT_MS);

/** systemd's own view: the unit file on disk differs from what it loaded (e.g. a reload was cut short). */
export async function needsDaemonReload(unit: string): Promise<boolean> {
  const result = await runCommand('systemctl', ['show', '--property=NeedDaemonReload', '--value', unit]);
  return result.code !== 0 || result.stdout.trim() !== 'no';
}

/** Stops and disables; a unit systemd does not know is already stopped. */
export async function stopAndDisable(unit: string): Promise<void> {
  await runCommand('systemctl', ['disable', '--now', '--quiet', unit], SYSTEMCTL_TIMEOUT_MS).then(async (result) => {
    if (result.code !== 0 && (await isKnown(unit))) await mustRun('systemctl', ['stop', unit], SYSTEMCTL_TIMEOUT_MS);
  });
  // A gateway that needed SIGKILL leaves the unit `failed`; a deliberate stop should read as inactive.
  await runCommand('systemctl', ['reset-failed', unit]);
}

async function isKnown(unit: string): Promise<boolean> {
  const result = await runCommand('systemctl', ['show', '--property=LoadState', '--value', unit]);
  return result.code === 0 && !['not-found', ''].includes(result.stdout.trim());
}

export async function isActive(unit: string): Promise<boolean> {
  return (await runCommand('systemctl', ['is-active', '--quiet', unit])).code === 0;
}

export async function isEnabled(unit: string): Promise<boolean> {
  return (await runCommand('systemctl', ['is-enabled', '--quiet', unit])).code === 0;
}

export async function activeState(unit: string): Promise<string> {
  const result = await runCommand('systemctl', ['show', '--property=ActiveState', '--value', unit]);
  return result.stdout.trim() || 'unknown';
}
