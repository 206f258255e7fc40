// What the read-only collector reports about a host in one round trip: the raw facts the
// invariant checker and the convergence expectations judge (they never touch a host themselves).

export type EntryType = 'file' | 'dir' | 'link' | 'other';

export interface Entry {
  /** Relative to the root (or to the unit directory for unit entries), `/`-separated. */
  path: string;
  type: EntryType;
  uid: number;
  gid: number;
  /** Permission bits only (mode & 0o7777). */
  mode: number;
  size: number;
  /** Symlink target, as stored. */
  target?: string;
  /** Text of a JSON marker (files named *.json outside home/ and state/). */
  text?: string;
  /** SHA-256 of a snapshot (files named openclaw.json) or of a workspace document (state/workspace/<NAME>.md). */
  sha256?: string;
}

export interface UnitInfo {
  /** File name in the unit directory. */
  name: string;
  type: EntryType;
  uid: number;
  /** The first three lines: the ownership header. */
  head: string;
  activeState: string;
  unitFileState: string;
}

export interface AccountEntry {
  name: string;
  uid: number;
  gid: number;
}

export interface Listing {
  root: string;
  unitDir: string;
  /** How long the collector waited for every helper and foreign ssh session to end. */
  quiet: { waitedMs: number; timedOut: boolean; helpers: string[] };
  lock: { free: boolean; waitedMs: number };
  /** Everything under the root, never following a link. */
  entries: Entry[];
  /** Gateway unit files (openclaw-enterprise-gateway-*.service) in the unit directory. */
  units: UnitInfo[];
  /** Transient native-setup units (openclaw-enterprise-setup-*.service) systemd still knows, with their states. */
  setupUnits: { name: string; activeState: string }[];
  /** Any `*.tmp-*` name anywhere under the unit directory. */
  unitTemps: string[];
  /** passwd and group entries whose name starts with `<runtime.user>-`. */
  users: AccountEntry[];
  groups: { name: string; gid: number }[];
  /** /readyz of each port asked about: true only for a 200. */
  ready: Record<string, boolean>;
  /** /readyz of the port of every served.json whose unit is active (retried for a few seconds). */
  servedReady?: Record<string, boolean>;
  /** Ports of served gateways listed active that did not answer and whose unit then no longer ran: stopped while checked. */
  servedStopped?: number[];
}
