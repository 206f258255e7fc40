// Who holds a TCP port on this host: the kernel's socket tables, read as root, no tool needed.
import { readFileSync } from 'node:fs';
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
  const tables = ['/proc/net/tcp', '/proc/net/tcp6'].map((path) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  });
  return tables.flatMap((table) => parseListeners(table)).filter((listener) => listener.port === port);
}
