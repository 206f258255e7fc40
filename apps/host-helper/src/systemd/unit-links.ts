// A unit kept outside systemd's load path is found by name only through its link in
// /etc/systemd/system, which a reboot or an operator may have taken away. Taking the unit down
// links it again first, so disable finds it, and removes whatever link of ours is left after.
import { unitLinkPath, unitWantsLinkPath } from '@occ-ssh/markers';
import { removeFile } from '../fs/atomic-write.js';
import { lstatOrNull } from '../fs/safe-read.js';
import type { HostRunner } from '../run/system.js';
import { linkUnit, stopAndDisable } from './systemd.js';
import { readlinkSync } from 'node:fs';

/**
 * Stops and disables `unit`; with `unitDirectory` in the load path exactly as stopAndDisable does.
 * The caller has verified the unit file as this Agent's and every load-path entry of its name as
 * ours or absent (verifyUnitFile), under the same lock.
 */
export async function stopAndDisableLinked(runner: HostRunner, unitDirectory: string, unit: string): Promise<void> {
  const link = unitLinkPath(unitDirectory, unit);
  if (link === null) return stopAndDisable(runner, unit);
  const unitFile = `${unitDirectory}/${unit}`;
  // Security: only a root-owned regular file is linked, never a link that could point elsewhere.
  const stat = lstatOrNull(unitFile);
  if (stat?.isFile() && stat.uid === 0 && lstatOrNull(link) === null) await linkUnit(runner, unitFile);
  await stopAndDisable(runner, unit);
  // disable removes both links; these are what an interrupted or refused disable left.
  for (const path of [link, unitWantsLinkPath(unit)]) if (linksTo(path, [unitFile, link])) removeFile(path);
}

/**
 * Whether the unit is enabled, read from the disk as `is-enabled` reads it (systemd's cached
 * UnitFileState would miss a link removed by hand), with no process started: the wants link `enable`
 * makes and, for a unit outside the load path, its load-path link, each pointing exactly at the unit
 * file. Anything else reads as not enabled.
 */
export function enabledOnDisk(unit: string, unitFile: string, unitDirectory: string): boolean {
  const link = unitLinkPath(unitDirectory, unit);
  return linksTo(unitWantsLinkPath(unit), [unitFile]) && (link === null || linksTo(link, [unitFile]));
}

/** True only for a symbolic link pointing exactly at one of `targets` (it is never followed). */
function linksTo(path: string, targets: readonly string[]): boolean {
  return lstatOrNull(path)?.isSymbolicLink() === true && targets.includes(readlinkSync(path));
}
