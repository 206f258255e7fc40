// network.allowLinkLocal: absent or false, every gateway unit denies link-local addresses; true lets
// gateways reach them. Strictly a boolean, refused with its key path; passed to the helper only when true.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalHash } from '@occ-ssh/markers';
import { assertRefusal, CONFIG_KEY, SEED_INSTALLATION, seedWith } from '../../test/config-fixtures.js';
import { runtimeSettingsFor } from './hosts.js';
import { loadInstallationConfiguration } from './load.js';

const NETWORK = '      network:\n';
const KEY = `${CONFIG_KEY}.network.allowLinkLocal`;
const withSetting = (value: string) => seedWith([NETWORK, `${NETWORK}        allowLinkLocal: ${value}\n`]);
const settings = (text: string) => runtimeSettingsFor(loadInstallationConfiguration({ text }), 'stable');

describe('network.allowLinkLocal', () => {
  it('reaches the helper as allowLinkLocal: true only when set to true; absent and false send nothing', () => {
    assert.equal(loadInstallationConfiguration({ text: withSetting('true') }).network.allowLinkLocal, true);
    assert.equal(settings(withSetting('true')).allowLinkLocal, true);
    for (const text of [SEED_INSTALLATION, withSetting('false')]) assert.equal(Object.hasOwn(settings(text), 'allowLinkLocal'), false);
  });

  it('keeps the runtime hash of an Installation that leaves link-local denied, and changes it when allowed', () => {
    const plain = canonicalHash(settings(SEED_INSTALLATION));
    assert.equal(canonicalHash(settings(withSetting('false'))), plain);
    assert.notEqual(canonicalHash(settings(withSetting('true'))), plain);
  });

  const cases: [string, string, string][] = [
    ['a string', '"yes"', 'expected true or false, got "yes" (line 23)'],
    ['a number', '1', 'expected true or false, got 1 (line 23)'],
    ['null', 'null', 'expected true or false, got null (line 23)'],
  ];
  for (const [name, value, rest] of cases) {
    it(`refuses ${name} at its key path`, () => {
      assertRefusal({ name, text: withSetting(value), key: KEY, line: `${KEY}: ${rest}` });
    });
  }

  it('is in the exported JSON Schema as an optional boolean', async () => {
    const { configurationSchema } = await import('../package-entry.js');
    const network = (configurationSchema as { properties: { network: { properties: Record<string, unknown>; required?: string[] } } }).properties.network;
    assert.deepEqual(network.properties['allowLinkLocal'], { type: 'boolean' });
    assert.ok(!(network.required ?? []).includes('allowLinkLocal'));
  });
});
