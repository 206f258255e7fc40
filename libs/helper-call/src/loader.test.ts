// renderLoader, unpackLoader and the digests: the artifact's format, written and read in one place.
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import * as zlib from 'node:zlib';
import { BUNDLE_DIGEST_KEY, bundleDigest, loaderVersion, readArtifact, renderLoader, runningBundleDigest, unpackLoader } from './loader.js';

const BUNDLE = Buffer.from('"use strict";module.exports.ran=globalThis.marker;\n');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('the helper loader', () => {
  it('names the version on its first line and unpacks to the exact bundle', () => {
    const loader = renderLoader(BUNDLE, '1.2.3');
    assert.ok(loader.startsWith('"use strict";// occ-ssh host helper 1.2.3\n'));
    assert.deepEqual(unpackLoader(Buffer.from(loader)), BUNDLE);
    assert.equal(loaderVersion(Buffer.from(loader)), '1.2.3');
    assert.equal(loaderVersion(BUNDLE), undefined);
    assert.equal(bundleDigest(Buffer.from(loader)), sha256(BUNDLE));
  });

  it('runs the bundle and records the same digest bundleDigest computes from the artifact', () => {
    const loader = renderLoader(BUNDLE, '1.2.3');
    const module = { exports: {} as Record<string, unknown> };
    const sandbox: Record<string | symbol, unknown> = { require: (id: string) => ({ zlib, crypto })[id], module, exports: module.exports, __filename: 'h', __dirname: '/', Buffer, marker: 'yes' };
    runInNewContext(loader, sandbox);
    assert.equal(module.exports.ran, 'yes');
    const recorded = runInNewContext(`globalThis[Symbol.for(${JSON.stringify(BUNDLE_DIGEST_KEY)})]`, sandbox);
    assert.equal(recorded, bundleDigest(Buffer.from(loader)));
  });

  it('unpacks nothing from other bytes; their digest is of the bytes themselves', () => {
    const loader = renderLoader(BUNDLE, '1.2.3');
    for (const other of ['/* helper */', loader.replace('brotliDecompressSync', 'inflateSync'), loader.slice(0, -2), loader.replace('1.2.3\n', '1.2.3 ')]) {
      assert.equal(unpackLoader(Buffer.from(other)), undefined, other.slice(0, 60));
    }
    assert.equal(bundleDigest(Buffer.from('/* helper */')), sha256(Buffer.from('/* helper */')));
  });

  it('refuses a version that could break out of the comment line', () => {
    for (const version of ['', '1.0\nprocess.exit()', '1 2', 'x'.repeat(65)]) assert.throws(() => renderLoader(BUNDLE, version), TypeError, JSON.stringify(version));
  });

  it('the helper reads the recorded digest, or says it runs unbundled', () => {
    const key = Symbol.for(BUNDLE_DIGEST_KEY);
    const store = globalThis as unknown as Record<symbol, unknown>;
    assert.equal(runningBundleDigest(), 'unbundled');
    store[key] = 'not-a-digest';
    assert.equal(runningBundleDigest(), 'unbundled');
    store[key] = sha256(BUNDLE);
    assert.equal(runningBundleDigest(), sha256(BUNDLE));
    delete store[key];
  });
});

describe('readArtifact', () => {
  it('names the bytes read by their SHA-256', () => {
    assert.deepEqual(readArtifact(BUNDLE, '/x/host-helper.cjs'), { bytes: BUNDLE, sha256: sha256(BUNDLE), path: '/x/host-helper.cjs' });
  });
});
