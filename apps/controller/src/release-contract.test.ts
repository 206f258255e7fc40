// The release contract check: configuration keys and defaults, the wire protocol and marker
// versions, error codes, transport causes, metric, span and log field names and the Node versions
// are snapshotted in docs/api/contract.json, and a snapshot no CHANGELOG entry names fails.
// After a deliberate change: OCC_SSH_WRITE_CONTRACT=1 rewrites the snapshot; then name its digest
// in a CHANGELOG.md entry (docs/versioning.md says which release level the change needs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CHANGELOG_FILE, CONTRACT_FILE, contractDigest, releaseContract } from '../test/contract.js';

describe('the release contract', () => {
  it('docs/api/contract.json is what the code makes, and CHANGELOG.md names its digest', async () => {
    const made = await releaseContract();
    if (process.env.OCC_SSH_WRITE_CONTRACT === '1') writeFileSync(CONTRACT_FILE, made);
    // Compared as data, so a formatter's layout of the file does not matter.
    const recorded = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as unknown;
    assert.deepEqual(JSON.parse(made), recorded, 'the release contract changed: run this test with OCC_SSH_WRITE_CONTRACT=1, review docs/api/contract.json, and add a CHANGELOG.md entry');
    const digest = contractDigest(recorded);
    assert.ok(
      readFileSync(CHANGELOG_FILE, 'utf8').includes(`contract ${digest}`),
      `CHANGELOG.md has no entry for release contract ${digest}: describe the change and end the entry with "(contract ${digest})"`,
    );
  });
});
