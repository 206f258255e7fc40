// A pure reader of OpenSSH known_hosts content: decides whether a host's presented key is trusted.
//
// Matching follows OpenSSH (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"): the name looked up is `host` on
// port 22 and `[host]:port` otherwise; a line lists comma-separated patterns (`*`, `?`, `!negation`)
// or one hashed name `|1|<base64 salt>|<base64 HMAC-SHA1(salt, name)>`. Names compare
// case-insensitively, as ssh lowercases the host it connects to. Two deliberate differences keep
// this stricter than the system client: a key on any `@revoked` line is refused for every host, and
// `@cert-authority` lines never vouch for anything (this client does not accept host certificates).
import { createHmac, timingSafeEqual } from 'node:crypto';

const HOST_KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'] as const;
export type HostKeyType = (typeof HOST_KEY_TYPES)[number];

type KnownHostMarker = 'revoked' | 'cert-authority';

export interface KnownHostEntry {
  /** 1-based line number in the content, for diagnostics. */
  readonly line: number;
  readonly marker: KnownHostMarker | null;
  /** The host field exactly as written: a pattern list or one hashed name. */
  readonly hosts: string;
  readonly keyType: HostKeyType;
  /** The decoded key blob (SSH wire format), compared byte for byte. */
  readonly key: Buffer;
}

/** What the known_hosts content says about a presented key. */
export type HostKeyVerdict =
  /** A matching, unmarked entry carries exactly this key. */
  | 'accepted'
  /** The key appears on an `@revoked` line. */
  | 'revoked'
  /** Entries match the host, but none carries this key. */
  | 'mismatch'
  /** No usable entry names this host. */
  | 'unknown';

const HASH_MAGIC = '|1|';
const SHA1_BYTES = 20;

/**
 * The name ssh looks up for a destination: `host` on the default port, `[host]:port` otherwise.
 * Lowercased, as ssh lowercases the destination before any lookup.
 */
export function hostLookupName(host: string, port: number): string {
  const name = host.toLowerCase();
  return port === 22 ? name : `[${name}]:${port}`;
}

/** A hashed host field for `name` (as `ssh-keygen -H` writes it), for tools and tests. */
export function hashHostName(name: string, salt: Buffer): string {
  const hash = createHmac('sha1', salt).update(name).digest();
  return `${HASH_MAGIC}${salt.toString('base64')}|${hash.toString('base64')}`;
}

/** Every well-formed line with a supported key type; anything else (comments, junk, other types) is skipped. */
export function parseKnownHosts(text: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const entry = parseLine(lines[index] ?? '', index + 1);
    if (entry) entries.push(entry);
  }
  return entries;
}

function parseLine(raw: string, line: number): KnownHostEntry | undefined {
  const text = raw.replace(/\r$/, '').trim();
  if (text === '' || text.startsWith('#')) return undefined;
  const fields = text.split(/[ \t]+/);
  let marker: KnownHostMarker | null = null;
  if (fields[0]?.startsWith('@')) {
    const word = fields.shift();
    if (word === '@revoked') marker = 'revoked';
    else if (word === '@cert-authority') marker = 'cert-authority';
    else return undefined; // an unknown marker makes the whole line invalid, as in OpenSSH
  }
  const [hosts, keyType, encoded] = fields;
  if (!hosts || !keyType || !encoded) return undefined;
  if (!(HOST_KEY_TYPES as readonly string[]).includes(keyType)) return undefined;
  const key = decodeBase64Strict(encoded);
  if (!key || blobKeyType(key) !== keyType) return undefined;
  return { line, marker, hosts, keyType: keyType as HostKeyType, key };
}

/** Decodes canonical base64 only: Buffer.from would silently skip invalid characters. */
function decodeBase64Strict(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** The key-type string that opens an SSH public key blob, or undefined if the blob is malformed. */
export function blobKeyType(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (length === 0 || length > 64 || blob.length < 4 + length) return undefined;
  return blob.subarray(4, 4 + length).toString('latin1');
}

/** True when the entry's host field names the lookup name (and no negated pattern excludes it). */
function entryMatchesHost(entry: Pick<KnownHostEntry, 'hosts'>, host: string, port: number): boolean {
  const name = hostLookupName(host, port);
  if (entry.hosts.startsWith(HASH_MAGIC)) return hashedMatches(entry.hosts, name);
  return patternListMatches(entry.hosts, name);
}

function hashedMatches(field: string, name: string): boolean {
  const parts = field.slice(HASH_MAGIC.length).split('|');
  if (parts.length !== 2) return false;
  const salt = decodeBase64Strict(parts[0] ?? '');
  const expected = decodeBase64Strict(parts[1] ?? '');
  if (!salt || !expected || expected.length !== SHA1_BYTES) return false;
  const actual = createHmac('sha1', salt).update(name).digest();
  return timingSafeEqual(actual, expected);
}

/** OpenSSH's match_pattern_list: any negated match rejects; otherwise any positive match accepts. */
function patternListMatches(list: string, name: string): boolean {
  let matched = false;
  for (const item of list.split(',')) {
    const negated = item.startsWith('!');
    const pattern = (negated ? item.slice(1) : item).toLowerCase();
    if (pattern === '') continue;
    if (wildcardMatches(pattern, name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** `*` matches any run (including none) and `?` exactly one character; everything else is literal. */
export function wildcardMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === '?' || (pattern[p] !== '*' && pattern[p] === text[t]))) {
      p += 1;
      t += 1;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p;
      p += 1;
      resume = t;
    } else if (star !== -1) {
      p = star + 1;
      resume += 1;
      t = resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/** The verdict for a key presented by host:port; content may be raw text or already parsed entries. */
export function checkHostKey(knownHosts: string | readonly KnownHostEntry[], host: string, port: number, keyBlob: Buffer): HostKeyVerdict {
  const entries = typeof knownHosts === 'string' ? parseKnownHosts(knownHosts) : knownHosts;
  // Revocation is checked first and regardless of the host field: a revoked key is never trusted.
  if (entries.some((entry) => entry.marker === 'revoked' && entry.key.equals(keyBlob))) return 'revoked';
  let named = false;
  for (const entry of entries) {
    if (entry.marker !== null || !entryMatchesHost(entry, host, port)) continue;
    if (entry.key.equals(keyBlob)) return 'accepted';
    named = true;
  }
  return named ? 'mismatch' : 'unknown';
}

/** True only when a matching, unmarked entry carries exactly this key blob and no `@revoked` line lists it. */
export function hostKeyAccepted(knownHosts: string | readonly KnownHostEntry[], host: string, port: number, keyBlob: Buffer): boolean {
  return checkHostKey(knownHosts, host, port, keyBlob) === 'accepted';
}

/** The key types the content trusts for host:port, in file order: a client offers these and nothing else. */
export function knownHostKeyTypes(knownHosts: string | readonly KnownHostEntry[], host: string, port: number): HostKeyType[] {
  const entries = typeof knownHosts === 'string' ? parseKnownHosts(knownHosts) : knownHosts;
  const revoked = entries.filter((entry) => entry.marker === 'revoked');
  const types: HostKeyType[] = [];
  for (const entry of entries) {
    if (entry.marker !== null || !entryMatchesHost(entry, host, port)) continue;
    if (revoked.some((r) => r.key.equals(entry.key))) continue;
    if (!types.includes(entry.keyType)) types.push(entry.keyType);
  }
  return types;
}
