// The release gate: a changed release contract needs a new version and a CHANGELOG entry naming it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { changelogSections, compareVersions, releaseGate } from '../release-gate.js';
import { CHANGELOG_FILE, CONTRACT_FILE, contractDigest } from '../test/contract.js';

const changelog = (unreleased: string, released = '') => `# Changelog\n\n## [Unreleased]\n\n${unreleased}\n\n## [0.1.0] - 2026-12-01\n\n- The first release.${released}\n`;

describe('the release gate', () => {
  it('reads the sections with their dates', () => {
    assert.deepEqual(
      changelogSections(changelog('- a change (contract abc)')).map(({ title, date }) => ({ title, date })),
      [
        { title: 'Unreleased', date: undefined },
        { title: '0.1.0', date: '2026-12-01' },
      ],
    );
    assert.ok(compareVersions('0.2.0', '0.1.9') > 0);
    assert.equal(compareVersions('1.0.0', '1.0.0'), 0);
    assert.throws(() => compareVersions('0.2', '0.1.0'), /not a release version/);
  });

  it('refuses a contract that changed since the last release while the version stayed', () => {
    assert.deepEqual(releaseGate(changelog('- a field (contract 0123456789ab)'), '0.1.0', '0123456789ab'), [
      'the release contract changed since 0.1.0 (contract 0123456789ab) while the version is still 0.1.0: bump it as docs/versioning.md says',
    ]);
  });

  it('refuses a contract no entry names, and a version below the last release', () => {
    assert.match(releaseGate(changelog('- a field'), '0.2.0', '0123456789ab').join('\n'), /no CHANGELOG\.md entry names the release contract: .*"\(contract 0123456789ab\)"/);
    assert.match(releaseGate(changelog('- x (contract 0123456789ab)'), '0.0.9', '0123456789ab').join('\n'), /version 0\.0\.9 is below the last release in CHANGELOG\.md, 0\.1\.0/);
  });

  it('passes a bumped version whose entry names the digest, and a rebuild of a release with its own contract', () => {
    assert.deepEqual(releaseGate(changelog('- a field (contract 0123456789ab)'), '0.2.0', '0123456789ab'), []);
    assert.deepEqual(releaseGate(changelog('- docs only', ' (contract 0123456789ab)'), '0.1.0', '0123456789ab'), []);
  });

  it("passes this workspace's version, CHANGELOG.md and docs/api/contract.json", () => {
    const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    const digest = contractDigest(JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')));
    assert.deepEqual(releaseGate(readFileSync(CHANGELOG_FILE, 'utf8'), version, digest), []);
  });
});
