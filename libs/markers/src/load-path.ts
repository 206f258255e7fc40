// systemd's system unit load path, and where a unit kept outside it is linked in.

/** Where `systemctl link` and `systemctl enable <path>` put the link to a unit kept outside the load path. */
export const SYSTEMD_CONFIG_DIR = '/etc/systemd/system';

/**
 * The system manager's unit load path, highest priority first, as `systemd-analyze unit-paths` prints
 * it on systemd 252 (the test hosts' Debian 12). systemd finds a unit by name only in these
 * directories themselves, never in their subdirectories.
 */
export const SYSTEMD_LOAD_PATH: readonly string[] = [
  '/etc/systemd/system.control',
  '/run/systemd/system.control',
  '/run/systemd/transient',
  '/run/systemd/generator.early',
  SYSTEMD_CONFIG_DIR,
  '/etc/systemd/system.attached',
  '/run/systemd/system',
  '/run/systemd/system.attached',
  '/run/systemd/generator',
  '/usr/local/lib/systemd/system',
  '/lib/systemd/system',
  '/usr/lib/systemd/system',
  '/run/systemd/generator.late',
];

/** True when systemd finds a unit file in this directory by its name alone. */
export function inLoadPath(unitDirectory: string): boolean {
  return SYSTEMD_LOAD_PATH.includes(unitDirectory);
}

/** The load-path link of a unit kept in `unitDirectory`, or null when the directory is in the load path (no link is made). */
export function unitLinkPath(unitDirectory: string, unitName: string): string | null {
  return inLoadPath(unitDirectory) ? null : `${SYSTEMD_CONFIG_DIR}/${unitName}`;
}

/** Where enabling puts the wants link of a unit installed `WantedBy=multi-user.target`, whatever its directory. */
export function unitWantsLinkPath(unitName: string): string {
  return `${SYSTEMD_CONFIG_DIR}/multi-user.target.wants/${unitName}`;
}
