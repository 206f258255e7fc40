// The SHA-256 of the helper bundle inside the shipped artifact: the digest the helper computes of
// the code it runs and writes into each host audit line, so both sides can be compared.
import { createHash } from 'node:crypto';
import { brotliDecompressSync } from 'node:zlib';

const PACKED = /Buffer\.from\("([A-Za-z0-9+/=]+)","base64"\)/;

export function bundleDigest(artifact: Buffer): string {
  const packed = PACKED.exec(artifact.toString('utf8'))?.[1];
  const bundle = packed ? brotliDecompressSync(Buffer.from(packed, 'base64')) : artifact;
  return createHash('sha256').update(bundle).digest('hex');
}
