// Who holds a TCP port on this host: the kernel's socket tables, read as root, no tool needed.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { endianness } from 'node:os';

export interface Listener {
  address: string;
  port: number;
  /** The socket owner as the kernel records it (the UID that created the socket). */
  uid: number;
  inode: number;
}

const LISTEN = '0A';

/**
 * Parses /proc/net/tcp or /proc/net/tcp6 into its listening sockets. Addresses are printed as
 * 32-bit words in host byte order, so the bytes of each word are reversed on little-endian hosts.
 */
export function parseListeners(table: string, little = endianness() === 'LE'): Listener[] {
  const found: Listener[] = [];
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[3] !== LISTEN) continue;
    const [addressHex = '', portHex = ''] = (fields[1] ?? '').split(':');
    const uid = Number(fields[7]);
    const inode = Number(fields[9]);
    if (!/^([0-9A-F]{8}|[0-9A-F]{32})$/.test(addressHex) || !/^[0-9A-F]{4}$/.test(portHex) || !Number.isInteger(uid) || !Number.isInteger(inode)) continue;
    found.push({ address: decodeAddress(addressHex, little), port: parseInt(portHex, 16), uid, inode });
  }
  return found;
}

function decodeAddress(hex: string, little: boolean): string {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const wordBytes = [0, 2, 4, 6].map((at) => parseInt(hex.slice(word + at, word + at + 2), 16));
    bytes.push(...(little ? wordBytes.reverse() : wordBytes));
  }
  if (bytes.length === 4) return bytes.join('.');
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return `[${groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::')}]`;
}

/** Every TCP listener on `port`, IPv4 and IPv6, in this helper's network namespace (the gateways'). */
export function listenersOn(port: number): Listener[] {
  const tables = ['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readText(path) ?? '');
  return tables.flatMap((table) => parseListeners(table)).filter((listener) => listener.port === port);
}

/** Control-group roots to look under: cgroup v2, hybrid (v2 at unified/), legacy (systemd's named v1 hierarchy). */
const CGROUP_ROOTS = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified', '/sys/fs/cgroup/systemd'];

/**
 * The socket inodes open in the processes of a unit's control group (`ControlGroup=` as systemd
 * reports it; empty when the unit has no processes), or undefined when this host's control groups
 * are not where they can be read. Read as root from /proc; only link texts are read, nothing is followed.
 */
export function socketInodesOf(controlGroup: string): Set<number> | undefined {
  const root = CGROUP_ROOTS.find((candidate) => existsSync(`${candidate}/cgroup.procs`));
  if (!root) return undefined;
  const inodes = new Set<number>();
  if (controlGroup === '') return inodes;
  // Security: a path systemd would never report holds no socket of the unit (fail closed).
  if (!/^\/[A-Za-z0-9@._:\\/-]+$/.test(controlGroup) || controlGroup.split('/').includes('..')) return inodes;
  // A unit between restarts may have no control group at all: then it holds no socket.
  const procs = readText(`${root}${controlGroup}/cgroup.procs`) ?? '';
  for (const pid of procs.split('\n').filter((line) => /^\d+$/.test(line))) {
    for (const fd of readDir(`/proc/${pid}/fd`)) {
      const match = /^socket:\[(\d+)\]$/.exec(readLink(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(Number(match[1]));
    }
  }
  return inodes;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
