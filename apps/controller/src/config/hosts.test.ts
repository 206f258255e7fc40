// Host look-up by exact Namespace name, per-host overrides, and the protocol's RuntimeSettings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError, runtimeSettings } from '@occ-ssh/protocol';
import { seedWith } from '../../test/config-fixtures.js';
import { hostFor, runtimeSettingsFor } from './hosts.js';
import { loadInstallationConfiguration } from './load.js';

const config = loadInstallationConfiguration({
  text: seedWith(
    ['          openclawPath: /opt/openclaw/current/dist/index.js\n', '          openclawPath: /opt/openclaw/canary/dist/index.js\n'],
    ['          nodePath: /usr/bin/node\n', '          nodePath: /opt/node24/bin/node\n'],
    ['      runtime:\n', '        plain:\n          address: build-2.example.com\n          port: 2200\n          user: root\n      runtime:\n'],
  ),
});

function assertUnmapped(name: string): void {
  assert.throws(
    () => hostFor(config, name),
    (error: unknown) => {
      assert.ok(error instanceof ComputeError);
      assert.equal(error.code, 'configuration');
      assert.equal(error.permanent, true);
      assert.equal(error.message, `Namespace ${JSON.stringify(name)} is not mapped to a host in drivers.compute.configuration.hosts`);
      assert.deepEqual(error.details, { key: 'drivers.compute.configuration.hosts' });
      return true;
    },
  );
}

describe('hostFor', () => {
  it("uses a host's own nodePath and openclawPath over the runtime defaults", () => {
    assert.deepEqual(hostFor(config, 'stable'), {
      name: 'stable',
      address: '203.0.113.10',
      port: 22,
      user: 'root',
      nodePath: '/opt/node24/bin/node',
      openclawPath: '/opt/openclaw/canary/dist/index.js',
    });
  });

  it('falls back to the runtime paths for a host without overrides', () => {
    assert.deepEqual(hostFor(config, 'plain'), {
      name: 'plain',
      address: 'build-2.example.com',
      port: 2200,
      user: 'root',
      nodePath: '/usr/bin/node',
      openclawPath: '/opt/openclaw/current/dist/index.js',
    });
  });

  it('refuses an unmapped Namespace name with a permanent configuration error', () => assertUnmapped('production'));

  it('matches names exactly, never by case or prototype keys', () => {
    for (const name of ['Stable', 'stable ', 'constructor', '__proto__', 'toString']) assertUnmapped(name);
  });

  it('returns a frozen host', () => assert.ok(Object.isFrozen(hostFor(config, 'stable'))));
});

describe('runtimeSettingsFor', () => {
  it("returns the protocol's RuntimeSettings for the Namespace's host", () => {
    const settings = runtimeSettingsFor(config, 'stable');
    assert.deepEqual(settings, {
      root: '/var/lib/openclaw-enterprise',
      systemdUnitDirectory: '/etc/systemd/system',
      nodePath: '/opt/node24/bin/node',
      openclawPath: '/opt/openclaw/canary/dist/index.js',
      user: 'openclaw',
      gatewayPortRange: { start: 18800, end: 18899 },
    });
    assert.ok(runtimeSettings.safeParse(settings).success);
    assert.ok(Object.isFrozen(settings) && Object.isFrozen(settings.gatewayPortRange));
  });

  it("carries the Installation's account ID range when it sets one, and nothing when it does not", () => {
    const ranged = { ...config, runtime: { ...config.runtime, accountIdRange: { start: 20000, end: 29999 } } };
    const settings = runtimeSettingsFor(ranged, 'stable');
    assert.deepEqual(settings.accountIdRange, { start: 20000, end: 29999 });
    assert.ok(Object.isFrozen(settings.accountIdRange));
    assert.equal('accountIdRange' in runtimeSettingsFor(config, 'stable'), false, 'absent stays absent, so no configuration hash changes');
  });

  it('uses the runtime paths for a host without overrides', () => {
    const settings = runtimeSettingsFor(config, 'plain');
    assert.equal(settings.nodePath, '/usr/bin/node');
    assert.equal(settings.openclawPath, '/opt/openclaw/current/dist/index.js');
  });

  it('refuses an unmapped Namespace name', () => {
    assert.throws(
      () => runtimeSettingsFor(config, 'production'),
      (error: unknown) => error instanceof ComputeError && error.permanent,
    );
  });

  it('refuses settings that did not come from the loader, naming the field', () => {
    const forged = { ...config, runtime: { ...config.runtime, user: 'root' } };
    assert.throws(
      () => runtimeSettingsFor(forged, 'stable'),
      (error: unknown) => error instanceof ComputeError && error.permanent && error.message === 'invalid runtime settings for Namespace "stable": user: must not be root',
    );
  });
});
