// The package entry OCC's loader imports: schema from zod, the validator's key paths, the factory's identity.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { parse } from 'yaml';
import { z } from 'zod';
import { SEED_INSTALLATION, edit } from '../test/config-fixtures.js';
import { loadInstallationConfiguration, sshComputeConfigurationSchema } from './config/index.js';
import { configurationSchema, createDriver, validateConfiguration } from './package-entry.js';

/** The seed's `drivers.compute.configuration`, as OCC hands it over after parsing the Installation. */
function parsedConfiguration(text = SEED_INSTALLATION): Record<string, unknown> {
  return (parse(text) as { drivers: { compute: { configuration: Record<string, unknown> } } }).drivers.compute.configuration;
}

function refusal(run: () => void): ComputeError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ComputeError);
    assert.equal(error.code, 'configuration');
    assert.equal(error.failure, 'permanent');
    return error;
  }
  assert.fail('expected a configuration refusal');
}

describe('configurationSchema', () => {
  it("is zod's own JSON Schema export of the one configuration schema", () => {
    assert.deepEqual(configurationSchema, z.toJSONSchema(sshComputeConfigurationSchema, { io: 'input', unrepresentable: 'any' }));
    assert.equal(configurationSchema.type, 'object');
    assert.equal(configurationSchema.additionalProperties, false);
    assert.deepEqual(configurationSchema.required, ['ssh', 'hosts', 'runtime', 'network']);
    const runtime = (configurationSchema.properties as Record<string, { required: string[]; properties: Record<string, { default?: unknown }> }>).runtime!;
    assert.ok(!runtime.required.includes('systemdUnitDirectory'), "optional, as OCC's bundled SSH driver treats it");
    assert.equal(runtime.properties.systemdUnitDirectory?.default, '/etc/systemd/system');
  });
});

describe('validateConfiguration', () => {
  it('accepts the configuration OCC parsed from the seed Installation', () => {
    assert.doesNotThrow(() => validateConfiguration(parsedConfiguration()));
  });

  it('throws the same key-path problems as the YAML loader, without YAML lines', () => {
    const text = edit(edit(SEED_INSTALLATION, '          port: 22\n', '          port: 0\n          portt: 22\n'), '        user: openclaw\n', '        user: root\n');
    const fromYaml = refusal(() => loadInstallationConfiguration({ text }));
    const fromObject = refusal(() => validateConfiguration(parsedConfiguration(text)));
    assert.equal(fromObject.message, fromYaml.message.replace(/ \(line \d+\)/g, ''));
    assert.equal(fromObject.details.key, fromYaml.details.key);
    assert.match(fromObject.message, /^drivers\.compute\.configuration\.hosts\.stable\.port: /m);
    assert.match(fromObject.message, /^drivers\.compute\.configuration\.hosts\.stable\.portt: unknown key$/m);
  });

  it('refuses what is not a configuration object', () => {
    for (const value of [undefined, null, [], 'compute-ssh', 7]) refusal(() => validateConfiguration(value));
  });

  it("accepts an Installation written for OCC's bundled SSH driver that omits the keys it treats as optional", () => {
    const configuration = parsedConfiguration(edit(edit(SEED_INSTALLATION, '        connectTimeoutSeconds: 10\n', ''), '        systemdUnitDirectory: /etc/systemd/system\n', ''));
    const driver = createDriver({ id: 'compute-ssh', implementation: '@occ-ssh/compute-driver@0.1.0', configuration });
    assert.equal(driver.id, 'compute-ssh');
    const loaded = loadInstallationConfiguration({ text: edit(SEED_INSTALLATION, '        systemdUnitDirectory: /etc/systemd/system\n', '') });
    assert.equal(loaded.runtime.systemdUnitDirectory, '/etc/systemd/system');
    assert.equal(loaded.ssh.connectTimeoutSeconds, 10);
  });
});

describe('createDriver', () => {
  it("echoes OCC's id and implementation, is a compute driver, and has the five methods OCC's loader requires", () => {
    const driver = createDriver({ id: 'ssh-fleet', implementation: '@occ-ssh/compute-driver@0.1.0', configuration: parsedConfiguration(), getOperationAbortSignal: () => undefined });
    assert.equal(driver.id, 'ssh-fleet');
    assert.equal(driver.implementation, '@occ-ssh/compute-driver@0.1.0');
    assert.equal(driver.capability, 'compute');
    for (const method of ['ensureNamespace', 'deleteNamespace', 'prepareRevision', 'stopRevision', 'retireRevision', 'setLifecycleDrivers']) {
      assert.equal(typeof (driver as unknown as Record<string, unknown>)[method], 'function', method);
    }
    assert.equal('getGatewayEndpoint' in driver, false);
  });

  it("refuses an invalid configuration with the validator's error, building nothing", () => {
    const error = refusal(() => createDriver({ id: 'compute-ssh', implementation: 'x@1', configuration: { ...parsedConfiguration(), transport: 'telnet' } }));
    assert.match(error.message, /^drivers\.compute\.configuration\.transport: /);
  });
});
