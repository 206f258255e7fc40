// runtime.gatewayLimits: optional per-gateway limits, refused with their key path, passed to the helper as set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalHash } from '@occ-ssh/markers';
import { assertRefusal, CONFIG_KEY, SEED_INSTALLATION, seedWith } from '../../test/config-fixtures.js';
import { runtimeSettingsFor } from './hosts.js';
import { loadInstallationConfiguration } from './load.js';

const UNITS = '        systemdUnitDirectory: /etc/systemd/system\n';
const KEY = `${CONFIG_KEY}.runtime.gatewayLimits`;
const withLimits = (lines: string) => seedWith([UNITS, `${UNITS}        gatewayLimits:\n${lines}`]);

describe('runtime.gatewayLimits', () => {
  it('passes the limits set to the helper, and none when the key is absent', () => {
    const config = loadInstallationConfiguration({ text: withLimits('          memoryMaxMiB: 1536\n          tasksMax: 256\n          cpuWeight: 50\n') });
    assert.deepEqual(runtimeSettingsFor(config, 'stable').gatewayLimits, { memoryMaxMiB: 1536, tasksMax: 256, cpuWeight: 50 });
    const partial = loadInstallationConfiguration({ text: withLimits('          tasksMax: 64\n') });
    assert.deepEqual(runtimeSettingsFor(partial, 'stable').gatewayLimits, { tasksMax: 64 });
    const plain = runtimeSettingsFor(loadInstallationConfiguration({ text: SEED_INSTALLATION }), 'stable');
    assert.equal(Object.hasOwn(plain, 'gatewayLimits'), false);
  });

  it('keeps the configuration hash of an Installation without limits, and changes it with them', () => {
    const plain = runtimeSettingsFor(loadInstallationConfiguration({ text: SEED_INSTALLATION }), 'stable');
    const { gatewayLimits: _none, ...withoutKey } = plain;
    assert.equal(canonicalHash(plain), canonicalHash(withoutKey));
    const limited = runtimeSettingsFor(loadInstallationConfiguration({ text: withLimits('          cpuWeight: 50\n') }), 'stable');
    assert.notEqual(canonicalHash(limited), canonicalHash(plain));
  });

  const cases: [string, string, string, string][] = [
    ['memory below its floor', '          memoryMaxMiB: 64\n', 'memoryMaxMiB', 'expected an integer from 128 to 1048576, got 64 (line 23)'],
    ['memory as a string with a unit', '          memoryMaxMiB: 2G\n', 'memoryMaxMiB', 'expected an integer from 128 to 1048576, got "2G" (line 23)'],
    ['tasks as a fraction', '          tasksMax: 40.5\n', 'tasksMax', 'expected an integer from 32 to 65536, got 40.5 (line 23)'],
    ['CPU weight 0', '          cpuWeight: 0\n', 'cpuWeight', 'expected an integer from 1 to 10000, got 0 (line 23)'],
    ['CPU weight above systemd range', '          cpuWeight: 10001\n', 'cpuWeight', 'expected an integer from 1 to 10000, got 10001 (line 23)'],
    ['an unknown limit', '          memorySwapMaxMiB: 0\n', 'memorySwapMaxMiB', 'unknown key (line 23)'],
  ];
  for (const [name, lines, field, rest] of cases) {
    it(`refuses ${name} at its key path`, () => {
      assertRefusal({ name, text: withLimits(lines), key: `${KEY}.${field}`, line: `${KEY}.${field}: ${rest}` });
    });
  }

  it('refuses limits that are not a mapping', () => {
    const text = seedWith([UNITS, `${UNITS}        gatewayLimits: 2G\n`]);
    assertRefusal({ name: 'scalar', text, key: KEY, line: `${KEY}: expected a mapping, got "2G" (line 22)` });
  });
});
