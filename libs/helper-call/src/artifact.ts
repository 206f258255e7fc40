// The host helper as the controller holds it: its bytes, identified by SHA-256. Reading the file is
// the caller's (the controller's loadHelperArtifact); this names what was read.
import { createHash } from 'node:crypto';

export interface HelperArtifact {
  bytes: Buffer;
  sha256: string;
  path: string;
}

export function readArtifact(bytes: Uint8Array, path: string): HelperArtifact {
  const buffer = Buffer.from(bytes);
  return { bytes: buffer, sha256: createHash('sha256').update(buffer).digest('hex'), path };
}
