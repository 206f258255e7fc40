// known_hosts matching: plain, bracketed, hashed, wildcard and negated names; revoked and CA lines.
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { blobKeyType, checkHostKey, hashHostName, hostKeyAccepted, hostLookupName, knownHostKeyTypes, parseKnownHosts, wildcardMatches } from './known-hosts.js';

function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** An mpint: big-endian, with a leading zero byte when the high bit is set. */
function mpint(value: Buffer): Buffer {
  let bytes = value;
  while (bytes.length > 1 && bytes[0] === 0) bytes = bytes.subarray(1);
  return sshString((bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function ed25519Blob(): Buffer {
  const { publicKey } = generateKeyPairSync('ed25519');
  const x = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  return Buffer.concat([sshString('ssh-ed25519'), sshString(x)]);
}

function ecdsaBlob(): Buffer {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x ?? '', 'base64url'), Buffer.from(jwk.y ?? '', 'base64url')]);
  return Buffer.concat([sshString('ecdsa-sha2-nistp256'), sshString('nistp256'), sshString(point)]);
}

function rsaBlob(): Buffer {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.concat([sshString('ssh-rsa'), mpint(Buffer.from(jwk.e ?? '', 'base64url')), mpint(Buffer.from(jwk.n ?? '', 'base64url'))]);
}

const ED = ed25519Blob();
const ED_OTHER = ed25519Blob();
const EC = ecdsaBlob();
const RSA = rsaBlob();
const b64 = (blob: Buffer) => blob.toString('base64');

describe('known_hosts parsing', () => {
  it('reads entries with markers, comments and trailing comments; skips junk and unsupported types', () => {
    const text = [
      '# a comment',
      '',
      '   ',
      `host.example,198.51.100.1 ssh-ed25519 ${b64(ED)} operator@laptop`,
      `@revoked * ssh-ed25519 ${b64(ED_OTHER)}`,
      `@cert-authority *.example ecdsa-sha2-nistp256 ${b64(EC)}`,
      `@unknown-marker host ssh-ed25519 ${b64(ED)}`,
      `host ssh-dss ${b64(ED)}`,
      `host ssh-ed25519 not*base64`,
      `host ssh-rsa ${b64(ED)}`, // the blob says ssh-ed25519: inconsistent, skipped
      'only-a-host',
      `\thost2\tssh-rsa\t${b64(RSA)}\r`,
    ].join('\n');
    const entries = parseKnownHosts(text);
    assert.deepEqual(
      entries.map((entry) => [entry.line, entry.marker, entry.hosts, entry.keyType]),
      [
        [4, null, 'host.example,198.51.100.1', 'ssh-ed25519'],
        [5, 'revoked', '*', 'ssh-ed25519'],
        [6, 'cert-authority', '*.example', 'ecdsa-sha2-nistp256'],
        [12, null, 'host2', 'ssh-rsa'],
      ],
    );
    assert.ok(entries[0]?.key.equals(ED));
  });

  it('reads the key type from a blob and refuses malformed blobs', () => {
    assert.equal(blobKeyType(ED), 'ssh-ed25519');
    assert.equal(blobKeyType(EC), 'ecdsa-sha2-nistp256');
    assert.equal(blobKeyType(RSA), 'ssh-rsa');
    assert.equal(blobKeyType(Buffer.from([0, 0, 0])), undefined);
    assert.equal(blobKeyType(Buffer.from([0, 0, 0, 9, 65])), undefined);
  });

  it('names port 22 plainly and other ports in brackets, lowercased', () => {
    assert.equal(hostLookupName('Host.Example', 22), 'host.example');
    assert.equal(hostLookupName('198.51.100.1', 2222), '[198.51.100.1]:2222');
    assert.equal(hostLookupName('2001:db8::1', 2222), '[2001:db8::1]:2222');
  });

  it('matches * and ? wildcards like OpenSSH', () => {
    assert.equal(wildcardMatches('*', ''), true);
    assert.equal(wildcardMatches('*.example', 'a.b.example'), true);
    assert.equal(wildcardMatches('*.example', 'example'), false);
    assert.equal(wildcardMatches('198.51.100.?', '198.51.100.7'), true);
    assert.equal(wildcardMatches('198.51.100.?', '198.51.100.17'), false);
    assert.equal(wildcardMatches('a*b*c', 'axxbyyc'), true);
    assert.equal(wildcardMatches('a*b*c', 'axxbyy'), false);
    assert.equal(wildcardMatches('[198.51.100.1]:*', '[198.51.100.1]:2222'), true);
  });
});

describe('hostKeyAccepted', () => {
  it('accepts the listed key for a plain host and refuses a wrong key or an unknown host', () => {
    const text = `198.51.100.1 ssh-ed25519 ${b64(ED)}\n`;
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED), true);
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED_OTHER), false);
    assert.equal(checkHostKey(text, '198.51.100.1', 22, ED_OTHER), 'mismatch');
    assert.equal(hostKeyAccepted(text, '198.51.100.2', 22, ED), false);
    assert.equal(checkHostKey(text, '198.51.100.2', 22, ED), 'unknown');
    assert.equal(hostKeyAccepted('', '198.51.100.1', 22, ED), false);
  });

  it('matches any name of a comma list, case-insensitively', () => {
    const text = `Host.Example,198.51.100.1 ssh-ed25519 ${b64(ED)}\n`;
    assert.equal(hostKeyAccepted(text, 'host.example', 22, ED), true);
    assert.equal(hostKeyAccepted(text, 'HOST.example', 22, ED), true);
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED), true);
    assert.equal(hostKeyAccepted(text, 'host', 22, ED), false);
  });

  it('compares the whole blob: the same type with different bytes is refused', () => {
    const text = `h ssh-ed25519 ${b64(ED)}\n`;
    const truncated = ED.subarray(0, ED.length - 1);
    const extended = Buffer.concat([ED, Buffer.from([0])]);
    assert.equal(hostKeyAccepted(text, 'h', 22, truncated), false);
    assert.equal(hostKeyAccepted(text, 'h', 22, extended), false);
  });

  it('uses [host]:port for a non-default port, and only then', () => {
    const text = [`[198.51.100.1]:2222 ssh-ed25519 ${b64(ED)}`, `198.51.100.1 ssh-ed25519 ${b64(ED_OTHER)}`].join('\n');
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 2222, ED), true);
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 2222, ED_OTHER), false, 'a port-22 entry says nothing about port 2222');
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED), false);
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED_OTHER), true);
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 2223, ED), false);
    assert.equal(hostKeyAccepted(`[198.51.100.1]:22 ssh-ed25519 ${b64(ED)}`, '198.51.100.1', 22, ED), false, 'port 22 is never bracketed');
  });

  it('accepts a hashed entry generated with HMAC-SHA1 and refuses other names, ports and keys', () => {
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update('198.51.100.1').digest('base64');
    const field = `|1|${salt.toString('base64')}|${hash}`;
    assert.equal(hashHostName('198.51.100.1', salt), field);
    const text = `${field} ssh-ed25519 ${b64(ED)}\n`;
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED), true);
    assert.equal(hostKeyAccepted(text, '198.51.100.2', 22, ED), false);
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 2222, ED), false);
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED_OTHER), false);
  });

  it('accepts a hashed [host]:port entry for that port only', () => {
    const salt = randomBytes(20);
    const text = `${hashHostName('[db.example]:2222', salt)} ecdsa-sha2-nistp256 ${b64(EC)}\n`;
    assert.equal(hostKeyAccepted(text, 'db.example', 2222, EC), true);
    assert.equal(hostKeyAccepted(text, 'DB.example', 2222, EC), true);
    assert.equal(hostKeyAccepted(text, 'db.example', 22, EC), false);
  });

  it('ignores malformed hashed fields', () => {
    const salt = randomBytes(20);
    const good = hashHostName('h', salt);
    for (const field of [`${good}|x`, '|1|', `|1|${salt.toString('base64')}|`, `|1|${salt.toString('base64')}|AAAA`, `|2|${good.slice(3)}`]) {
      assert.equal(hostKeyAccepted(`${field} ssh-ed25519 ${b64(ED)}`, 'h', 22, ED), false, field);
    }
  });

  it('refuses a revoked key even when another line accepts it, for any host', () => {
    const text = [`198.51.100.1 ssh-ed25519 ${b64(ED)}`, `@revoked 198.51.100.1 ssh-ed25519 ${b64(ED)}`].join('\n');
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED), false);
    assert.equal(checkHostKey(text, '198.51.100.1', 22, ED), 'revoked');
    // A revocation scoped to another name still refuses the key everywhere (stricter than OpenSSH).
    const elsewhere = [`198.51.100.1 ssh-ed25519 ${b64(ED)}`, `@revoked other.example ssh-ed25519 ${b64(ED)}`].join('\n');
    assert.equal(hostKeyAccepted(elsewhere, '198.51.100.1', 22, ED), false);
    // Revoking one key leaves the host's other keys valid.
    const other = [`198.51.100.1 ssh-ed25519 ${b64(ED)}`, `198.51.100.1 ecdsa-sha2-nistp256 ${b64(EC)}`, `@revoked * ssh-ed25519 ${b64(ED)}`].join('\n');
    assert.equal(hostKeyAccepted(other, '198.51.100.1', 22, EC), true);
  });

  it('never accepts a key because of an @cert-authority line', () => {
    const text = `@cert-authority * ssh-ed25519 ${b64(ED)}\n`;
    assert.equal(hostKeyAccepted(text, '198.51.100.1', 22, ED), false);
    assert.equal(checkHostKey(text, '198.51.100.1', 22, ED), 'unknown');
    assert.deepEqual(knownHostKeyTypes(text, '198.51.100.1', 22), []);
  });

  it('lets a negated pattern exclude a host that a wildcard would include', () => {
    const text = `*.example,!bad.example ssh-ed25519 ${b64(ED)}\n`;
    assert.equal(hostKeyAccepted(text, 'good.example', 22, ED), true);
    assert.equal(hostKeyAccepted(text, 'bad.example', 22, ED), false);
    assert.equal(hostKeyAccepted(text, 'BAD.example', 22, ED), false);
    // The negation wins wherever it appears in the list.
    assert.equal(hostKeyAccepted(`!bad.example,*.example ssh-ed25519 ${b64(ED)}`, 'bad.example', 22, ED), false);
    // A negation alone accepts nothing.
    assert.equal(hostKeyAccepted(`!bad.example ssh-ed25519 ${b64(ED)}`, 'good.example', 22, ED), false);
    // A negated line does not stop another line from accepting the host.
    const two = [`*,!198.51.100.1 ssh-ed25519 ${b64(ED_OTHER)}`, `198.51.100.1 ssh-ed25519 ${b64(ED)}`].join('\n');
    assert.equal(hostKeyAccepted(two, '198.51.100.1', 22, ED), true);
    assert.equal(hostKeyAccepted(two, '198.51.100.1', 22, ED_OTHER), false);
  });

  it('matches ? and * patterns, including bracketed ports', () => {
    assert.equal(hostKeyAccepted(`198.51.100.? ssh-ed25519 ${b64(ED)}`, '198.51.100.9', 22, ED), true);
    assert.equal(hostKeyAccepted(`198.51.100.? ssh-ed25519 ${b64(ED)}`, '198.51.100.10', 22, ED), false);
    assert.equal(hostKeyAccepted(`[198.51.100.1]:* ssh-ed25519 ${b64(ED)}`, '198.51.100.1', 2222, ED), true);
    assert.equal(hostKeyAccepted(`[198.51.100.1]:* ssh-ed25519 ${b64(ED)}`, '198.51.100.1', 22, ED), false);
  });

  it('supports ed25519, ecdsa and rsa keys side by side', () => {
    const text = [`h ssh-ed25519 ${b64(ED)}`, `h ecdsa-sha2-nistp256 ${b64(EC)}`, `h ssh-rsa ${b64(RSA)}`].join('\n');
    for (const key of [ED, EC, RSA]) assert.equal(hostKeyAccepted(text, 'h', 22, key), true);
    assert.equal(hostKeyAccepted(text, 'h', 22, ED_OTHER), false);
  });

  it('accepts parsed entries as well as text', () => {
    const entries = parseKnownHosts(`h ssh-ed25519 ${b64(ED)}`);
    assert.equal(hostKeyAccepted(entries, 'h', 22, ED), true);
  });
});

describe('knownHostKeyTypes', () => {
  it('lists the trusted types for a host in file order, without revoked keys or other hosts', () => {
    const text = [
      `other ssh-rsa ${b64(RSA)}`,
      `h ecdsa-sha2-nistp256 ${b64(EC)}`,
      `h,other ssh-ed25519 ${b64(ED)}`,
      `h ssh-ed25519 ${b64(ED_OTHER)}`,
      `h ssh-rsa ${b64(RSA)}`,
      `@revoked * ssh-rsa ${b64(RSA)}`,
    ].join('\n');
    assert.deepEqual(knownHostKeyTypes(text, 'h', 22), ['ecdsa-sha2-nistp256', 'ssh-ed25519']);
    assert.deepEqual(knownHostKeyTypes(text, 'other', 22), ['ssh-ed25519']);
    assert.deepEqual(knownHostKeyTypes(text, 'nobody', 22), []);
  });
});
