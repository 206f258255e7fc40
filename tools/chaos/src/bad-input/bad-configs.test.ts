// The malformed-Installation generator: its base is valid, its edits land where they claim, its
// cases are distinct, and the random ones replay from the seed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadInstallationConfiguration } from '@occ-ssh/controller';
import { BASE_INSTALLATION, fixedConfigCases, randomConfigCases, setValue } from './bad-configs.js';
import { Rng } from '../campaign/rng.js';

describe('bad Installation documents', () => {
  it('the base document is accepted', () => {
    assert.equal(loadInstallationConfiguration({ text: BASE_INSTALLATION }).runtime.root, '/var/lib/openclaw-enterprise');
  });

  it('setValue edits the value under the given block, or removes the line', () => {
    const edited = setValue(BASE_INSTALLATION, '      runtime:', 'nodePath', '/opt/node');
    assert.match(edited, /runtime:\n {8}nodePath: \/opt\/node\n/);
    assert.match(edited, /stable:[\s\S]*nodePath: \/usr\/bin\/node/, 'the host block keeps its own nodePath');
    assert.doesNotMatch(setValue(BASE_INSTALLATION, '      runtime:', 'root', null), /root: \/var\/lib/);
    assert.throws(() => setValue(BASE_INSTALLATION, '      nowhere:', 'root', 'x'));
  });

  it('every fixed case differs from the base and from every other case', () => {
    const cases = fixedConfigCases();
    assert.ok(cases.length >= 200, `${cases.length} cases`);
    assert.equal(new Set(cases.map((c) => c.text)).size, cases.length);
    assert.ok(cases.every((c) => c.text !== BASE_INSTALLATION));
    assert.ok(cases.every((c) => c.key === 'Installation document' || c.key.startsWith('drivers.')));
  });

  it('random cases replay from the seed', () => {
    assert.deepEqual(randomConfigCases(new Rng(5), 10), randomConfigCases(new Rng(5), 10));
    assert.notDeepEqual(randomConfigCases(new Rng(5), 10), randomConfigCases(new Rng(6), 10));
  });
});
