// The shipped artifact is a small loader around the brotli-compressed helper bundle, so each
// operation sends about a third of the bytes. The loader records the SHA-256 of the code it runs,
// which the helper writes into its journal audit lines; an operator computes the same digest from
// the artifact (bundleDigest) to compare. Reading the file is the caller's (the controller's
// loadHelperArtifact); readArtifact names what was read.
import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** The global the loader assigns: the SHA-256 of the bundle it decompressed and is running. */
export const BUNDLE_DIGEST_KEY = 'occ-ssh.helper-digest';

const HEADER = '"use strict";// occ-ssh host helper ';
const PACKED_START = 'const bundle=require("zlib").brotliDecompressSync(Buffer.from("';
// Literals only: the helper imports this module for runningBundleDigest, and a call here (such as
// JSON.stringify of the key) would keep these strings in its bundle, which esbuild cannot prove unused.
const PACKED_END =
  '","base64"));' +
  'globalThis[Symbol.for("occ-ssh.helper-digest")]=require("crypto").createHash("sha256").update(bundle).digest("hex");' +
  'new Function("require","module","exports","__filename","__dirname",bundle.toString())(require,module,exports,__filename,__dirname);\n';

/** The artifact for a CommonJS bundle: the loader with the bundle compressed inside it. */
export function renderLoader(bundle: Uint8Array, version: string): string {
  if (!/^[0-9A-Za-z.+-]{1,64}$/.test(version)) throw new TypeError('the helper version must be a plain version string');
  const packed = brotliCompressSync(bundle, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } });
  return `${HEADER}${version}\n${PACKED_START}${packed.toString('base64')}${PACKED_END}`;
}

/** The helper version a loader names on its first line, or undefined for any other bytes. */
export function loaderVersion(artifact: Uint8Array): string | undefined {
  const first = Buffer.from(artifact.subarray(0, 256)).toString('utf8').split('\n', 1)[0]!;
  return first.startsWith(HEADER) && first.length > HEADER.length ? first.slice(HEADER.length) : undefined;
}

/** The bundle inside a loader renderLoader wrote, or undefined for any other bytes. */
export function unpackLoader(artifact: Uint8Array): Buffer | undefined {
  const text = Buffer.from(artifact).toString('utf8');
  const newline = text.indexOf('\n');
  if (!text.startsWith(HEADER) || newline < 0) return undefined;
  const body = text.slice(newline + 1);
  if (!body.startsWith(PACKED_START) || !body.endsWith(PACKED_END)) return undefined;
  const packed = body.slice(PACKED_START.length, -PACKED_END.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(packed)) return undefined;
  return brotliDecompressSync(Buffer.from(packed, 'base64'));
}

/** The SHA-256 of the code the helper runs: of the bundle inside the loader, or of the artifact itself when it is no loader. */
export function bundleDigest(artifact: Uint8Array): string {
  return createHash('sha256')
    .update(unpackLoader(artifact) ?? artifact)
    .digest('hex');
}

/** The helper's side: the digest its loader recorded, or `unbundled` when it runs from source. */
export function runningBundleDigest(): string {
  const digest = (globalThis as unknown as Record<symbol, unknown>)[Symbol.for(BUNDLE_DIGEST_KEY)];
  return typeof digest === 'string' && /^[0-9a-f]{64}$/.test(digest) ? digest : 'unbundled';
}

/** The host helper as the controller holds it: its bytes, identified by SHA-256. */
export interface HelperArtifact {
  bytes: Buffer;
  sha256: string;
  path: string;
}

export function readArtifact(bytes: Uint8Array, path: string): HelperArtifact {
  const buffer = Buffer.from(bytes);
  return { bytes: buffer, sha256: createHash('sha256').update(buffer).digest('hex'), path };
}
