// The release contract check: configuration keys and defaults, the wire protocol and marker
// versions and shapes, error codes, transport causes, metric, span and log field names and the Node
// versions are snapshotted in docs/api/contract.json, and a snapshot no CHANGELOG entry names fails.
// After a deliberate change: OCC_SSH_WRITE_CONTRACT=1 rewrites the snapshot; then name its digest
// in a CHANGELOG.md entry (docs/versioning.md says which release level the change needs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CHANGELOG_FILE, CONTRACT_FILE, contractDigest, releaseContract } from '../../test/contract.js';

/** Each shape digest, the version that must change with it, and where that version is set. */
const VERSIONED = [
  { shapes: 'wireShapes', version: 'protocolVersion', constant: 'PROTOCOL_VERSION in libs/protocol/src/version.ts' },
  { shapes: 'markerShapes', version: 'markerVersion', constant: 'MARKER_VERSION in libs/markers (and read the older version: docs/versioning.md › On-host markers)' },
] as const;

describe('the release contract', () => {
  it('docs/api/contract.json is what the code makes, a shape changes only with its version, and CHANGELOG.md names the digest', async () => {
    const made = JSON.parse(await releaseContract()) as Record<string, unknown>;
    // Read before any rewrite, so rewriting the snapshot cannot hide a shape changed without its version.
    const committed = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as Record<string, unknown>;
    for (const { shapes, version, constant } of VERSIONED) {
      // A snapshot without the digest records no shape to hold the code to yet.
      if (committed[shapes] === undefined || made[shapes] === committed[shapes]) continue;
      assert.notEqual(
        made[version],
        committed[version],
        `the ${shapes} changed (${String(committed[shapes])} -> ${String(made[shapes])}) while ${version} stayed ${String(made[version])}: bump ${constant}`,
      );
    }
    if (process.env.OCC_SSH_WRITE_CONTRACT === '1') writeFileSync(CONTRACT_FILE, `${JSON.stringify(made, null, 2)}\n`);
    // Compared as data, so a formatter's layout of the file does not matter.
    const recorded = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as unknown;
    assert.deepEqual(made, recorded, 'the release contract changed: run this test with OCC_SSH_WRITE_CONTRACT=1, review docs/api/contract.json, and add a CHANGELOG.md entry');
    const digest = contractDigest(recorded);
    assert.ok(
      readFileSync(CHANGELOG_FILE, 'utf8').includes(`contract ${digest}`),
      `CHANGELOG.md has no entry for release contract ${digest}: describe the change and end the entry with "(contract ${digest})"`,
    );
  });
});
