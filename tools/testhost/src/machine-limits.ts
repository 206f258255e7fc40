// Raises the machine's inotify limits that many concurrent containers exhaust; never lowers them.
import { readFileSync, writeFileSync } from 'node:fs';
import { log } from './command.js';

/**
 * Every container runs as the same uid 0, and each systemd, journald, logind and dbus inside takes
 * inotify instances from one per-uid pool. The default of 128 runs out at about twenty hosts on
 * the machine; then units fail with "Failed to create inotify object: Too many open files".
 * The values are the ones commonly used for container hosts.
 */
const INOTIFY_MINIMUMS: ReadonlyArray<readonly [file: string, minimum: number]> = [
  ['/proc/sys/fs/inotify/max_user_instances', 8192],
  ['/proc/sys/fs/inotify/max_user_watches', 524288],
];

export function raiseInotifyLimits(): void {
  for (const [file, minimum] of INOTIFY_MINIMUMS) {
    const current = Number(readFileSync(file, 'utf8').trim());
    if (current >= minimum) continue;
    writeFileSync(file, `${minimum}\n`);
    log(`raised ${file} from ${current} to ${minimum}`);
  }
}
