// Who holds a TCP port on this host, and whether a unit's processes hold those sockets: read as root,
// bounded in time and work, since a tenant decides how many sockets, processes and descriptors exist.
import { accessSync, closeSync, constants, opendirSync, openSync, readlinkSync, readSync, type Dir } from 'node:fs';
import { endianness } from 'node:os';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { ssListenersArgv } from '../run/commands.js';
import type { HostRunner } from '../run/system.js';

export interface Listener {
  address: string;
  port: number;
  /** The socket owner as the kernel records it (the UID that created the socket). */
  uid: number;
  inode: number;
}

/** A check that stopped at one of its bounds: the caller fails closed, with this as the reason. */
export interface Exceeded {
  exceeded: string;
}

const LISTEN = '0A';
/** A slice of synchronous /proc work between two yields to the event loop (heartbeats, the deadline timer). */
const SLICE_MS = 10;
/**
 * Bounds of the scan of a unit's processes. The real gateway holds its listener in its main process
 * (examined first) with a few hundred descriptors; only a unit the Agent made this big reaches them.
 */
const MAX_PROCESSES = 1024;
const MAX_DESCRIPTORS = 100_000;
/** Bytes of /proc/net/tcp{,6} read when ss is missing: about 1.7 million sockets. */
const MAX_TABLE_BYTES = 256 * 1024 * 1024;
const SS_PATHS = ['/usr/sbin/ss', '/usr/bin/ss', '/sbin/ss', '/bin/ss'];

/**
 * Parses /proc/net/tcp or /proc/net/tcp6 into its listening sockets. Addresses are printed as
 * 32-bit words in host byte order, so the bytes of each word are reversed on little-endian hosts.
 */
export function parseListeners(table: string, little = endianness() === 'LE'): Listener[] {
  const found: Listener[] = [];
  for (const line of table.split('\n')) {
    const listener = parseTableLine(line, little);
    if (listener) found.push(listener);
  }
  return found;
}

function parseTableLine(line: string, little: boolean): Listener | undefined {
  const fields = line.trim().split(/\s+/);
  if (fields.length < 10 || fields[3] !== LISTEN) return undefined;
  const [addressHex = '', portHex = ''] = (fields[1] ?? '').split(':');
  const uid = Number(fields[7]);
  const inode = Number(fields[9]);
  if (!/^([0-9A-F]{8}|[0-9A-F]{32})$/.test(addressHex) || !/^[0-9A-F]{4}$/.test(portHex) || !Number.isInteger(uid) || !Number.isInteger(inode)) return undefined;
  return { address: decodeAddress(addressHex, little), port: parseInt(portHex, 16), uid, inode };
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

/**
 * Parses `ss -Htne state listening` output: each line names its local address (the first field
 * with a colon), `ino:` and, unless root's, `uid:`. A line that does not parse makes the
 * whole answer unusable (undefined): a listener skipped could be a squatter.
 */
export function parseSs(output: string): Listener[] | undefined {
  const found: Listener[] = [];
  for (const line of output.split('\n').filter((text) => text.trim() !== '')) {
    const fields = line.trim().split(/\s+/);
    // The counters before it are plain numbers; the fields after it are key:value.
    const local = /^(\S+):(\d{1,5})$/.exec(fields.find((field) => field.includes(':')) ?? '');
    const inode = /(?:^|\s)ino:(\d+)(?:\s|$)/.exec(line)?.[1];
    const uid = /(?:^|\s)uid:(\d+)(?:\s|$)/.exec(line)?.[1] ?? '0';
    if (!local || inode === undefined) return undefined;
    found.push({ address: local[1]!, port: Number(local[2]), uid: Number(uid), inode: Number(inode) });
  }
  return found;
}

let ssPath: string | null | undefined;

function findSs(): string | null {
  ssPath ??=
    SS_PATHS.find((path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }) ?? null;
  return ssPath;
}

/**
 * Every TCP listener on `port`, IPv4 and IPv6, in this helper's network namespace (the gateways').
 * Security: the socket tables are shared by every Agent, so a sibling with a million sockets must not
 * make this check fail for others. ss asks the kernel over netlink (inet_diag) to walk only listening
 * sockets and to filter them by port itself, so its answer holds only this port's listeners. Without
 * ss, /proc/net/tcp{,6} (every socket on the host) is streamed, keeping only this port's listeners,
 * under a generous time and byte bound.
 */
export async function listenersOn(runner: HostRunner, port: number, deadline: number): Promise<Listener[] | Exceeded> {
  const ss = findSs();
  if (ss) {
    const result = await runner.run(ssListenersArgv(ss, port), { timeoutMs: remaining(deadline) }).catch(() => undefined);
    if (!result) return { exceeded: `ss did not list the listeners on port ${port} within its bound` };
    const parsed = result.code === 0 ? parseSs(result.stdout) : undefined;
    if (parsed) return parsed.filter((listener) => listener.port === port);
  }
  const found: Listener[] = [];
  for (const path of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const table = await streamListeners(path, port, deadline);
    if ('exceeded' in table) return table;
    found.push(...table);
  }
  return found;
}

/** Reads a socket table in chunks (the event loop runs between them), keeping only listeners on `port`. */
export async function streamListeners(path: string, port: number, deadline: number): Promise<Listener[] | Exceeded> {
  // Loaded by the operations that read socket tables, not at the helper's start (run/system.ts).
  const { open } = process.getBuiltinModule('node:fs/promises');
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return [];
  const found: Listener[] = [];
  const buffer = Buffer.alloc(256 * 1024);
  const little = endianness() === 'LE';
  let rest = '';
  let total = 0;
  try {
    for (;;) {
      if (Date.now() >= deadline || total > MAX_TABLE_BYTES) return { exceeded: `${path} is too large to read within the listener check's bound (${total} bytes read)` };
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      const lines = (rest + buffer.toString('latin1', 0, bytesRead)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        const listener = parseTableLine(line, little);
        if (listener?.port === port) found.push(listener);
      }
    }
  } finally {
    await file.close();
  }
  const last = parseTableLine(rest, little);
  if (last?.port === port) found.push(last);
  return found;
}

/** Control-group roots to look under: cgroup v2, hybrid (v2 at unified/), legacy (systemd's named v1 hierarchy). */
const CGROUP_ROOTS = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified', '/sys/fs/cgroup/systemd'];

/** What the scan looks for: these inodes, in the processes of this control group, its main process first. */
export interface UnitSockets {
  controlGroup: string;
  mainPid: number;
  wanted: ReadonlySet<number>;
  deadline: number;
}

/**
 * Which of the wanted socket inodes are open in the unit's processes (`ControlGroup=` as systemd
 * reports it; none when the unit has no processes), or undefined when this host's control groups are
 * not where they can be read. Read as root from /proc; only link texts are read, nothing is followed.
 * The scan stops once every wanted inode is found, and at its bounds (time, processes, descriptors):
 * a unit too big to check is reported as such, never taken for the Agent's.
 */
export async function socketInodesOf({ controlGroup, mainPid, wanted, deadline }: UnitSockets): Promise<Set<number> | Exceeded | undefined> {
  const root = CGROUP_ROOTS.find((candidate) => exists(`${candidate}/cgroup.procs`));
  if (!root) return undefined;
  const found = new Set<number>();
  if (controlGroup === '') return found;
  // Security: a path systemd would never report holds no socket of the unit (fail closed).
  if (!/^\/[A-Za-z0-9@._:\\/-]+$/.test(controlGroup) || controlGroup.split('/').includes('..')) return found;
  const scan = new Scan(wanted, found, deadline);
  // The main process first, if it is still the unit's: the gateway's listener is normally there.
  if (mainPid > 0 && inControlGroup(mainPid, controlGroup)) {
    const done = await scan.process(String(mainPid));
    if (done) return done === true ? found : done;
  }
  // A unit between restarts may have no control group at all: then it holds no socket.
  const procs = readHead(`${root}${controlGroup}/cgroup.procs`, MAX_PROCESSES * 12) ?? { text: '', truncated: false };
  for (const pid of procs.text.split('\n').filter((line) => /^\d+$/.test(line) && line !== String(mainPid))) {
    const done = await scan.process(pid);
    if (done) return done === true ? found : done;
  }
  // A truncated list (more processes than read) leaves inodes unseen: the bound, not an outside holder.
  if (procs.truncated) return scan.exceeded(`more than ${MAX_PROCESSES} processes`);
  return found;
}

/** The work done so far, and the bounds it is held to. */
class Scan {
  private processes = 0;
  private descriptors = 0;
  private sliceStart = Date.now();

  constructor(
    private readonly wanted: ReadonlySet<number>,
    private readonly found: Set<number>,
    private readonly deadline: number,
  ) {}

  /** Reads one process's descriptors: true once every wanted inode is found, an Exceeded at a bound. */
  async process(pid: string): Promise<true | Exceeded | undefined> {
    if (++this.processes > MAX_PROCESSES) return this.exceeded(`more than ${MAX_PROCESSES} processes`);
    const dir = openDir(`/proc/${pid}/fd`);
    if (!dir) return undefined;
    try {
      for (let entry = readEntry(dir); entry !== null; entry = readEntry(dir)) {
        if (++this.descriptors > MAX_DESCRIPTORS) return this.exceeded(`more than ${MAX_DESCRIPTORS} descriptors`);
        const match = /^socket:\[(\d+)\]$/.exec(readLink(`/proc/${pid}/fd/${entry}`));
        if (match && this.wanted.has(Number(match[1]))) this.found.add(Number(match[1]));
        if (this.found.size === this.wanted.size) return true;
        if (Date.now() - this.sliceStart >= SLICE_MS) {
          if (Date.now() >= this.deadline) return this.exceeded('the time left');
          await yieldLoop();
          this.sliceStart = Date.now();
        }
      }
    } finally {
      dir.closeSync();
    }
    return undefined;
  }

  exceeded(bound: string): Exceeded {
    return { exceeded: `the unit is too big to check: its listener check stopped at its bound (${bound}) after ${this.processes} processes and ${this.descriptors} descriptors` };
  }
}

/** Whether the process is in this control group now (its /proc/<pid>/cgroup, any hierarchy). */
function inControlGroup(pid: number, controlGroup: string): boolean {
  const text = readHead(`/proc/${pid}/cgroup`, 64 * 1024)?.text ?? '';
  return text.split('\n').some((line) => line.split(':').slice(2).join(':') === controlGroup);
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

function exists(path: string): boolean {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The first `limit` bytes of a file, cut at its last whole line, or undefined when it cannot be read. */
function readHead(path: string, limit: number): { text: string; truncated: boolean } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    let read = -1;
    while (read !== 0 && length < buffer.length) {
      read = readSync(fd, buffer, length, buffer.length - length, null);
      length += read;
    }
    const text = buffer.toString('latin1', 0, length);
    return length > limit ? { text: text.slice(0, text.lastIndexOf('\n', limit) + 1), truncated: true } : { text, truncated: false };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function openDir(path: string): Dir | undefined {
  try {
    return opendirSync(path, { bufferSize: 256 });
  } catch {
    return undefined;
  }
}

function readEntry(dir: Dir): string | null {
  try {
    return dir.readSync()?.name ?? null;
  } catch {
    return null;
  }
}

function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
