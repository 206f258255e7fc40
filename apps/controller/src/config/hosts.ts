// Pure look-ups over a loaded configuration: a Namespace's host and its runtime settings.
import { ComputeError, formatIssues, runtimeSettings, type RuntimeSettings } from '@occ-ssh/protocol';
import { truncate } from './errors.js';
import type { SshComputeConfiguration } from './schema.js';

const CONFIGURATION_KEY = 'drivers.compute.configuration';
const HOSTS_KEY = `${CONFIGURATION_KEY}.hosts`;

const quoted = (name: string) => truncate(JSON.stringify(name));

/** One Namespace's host with the runtime paths it actually uses (its own override, else runtime's). */
export interface ResolvedHost {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly user: 'root';
  readonly nodePath: string;
  readonly openclawPath: string;
}

/**
 * The host mapped to the exact Namespace name. An unmapped name fails permanently: OCC never
 * chooses placement, so retrying cannot help until the operator maps it.
 */
export function hostFor(config: SshComputeConfiguration, namespaceName: string): ResolvedHost {
  // Own keys only: a name like "constructor" must not reach Object.prototype.
  const host = Object.hasOwn(config.hosts, namespaceName) ? config.hosts[namespaceName] : undefined;
  if (!host) {
    throw new ComputeError('configuration', `Namespace ${quoted(namespaceName)} is not mapped to a host in ${HOSTS_KEY}`, {
      key: HOSTS_KEY,
    });
  }
  return Object.freeze({
    name: namespaceName,
    address: host.address,
    port: host.port,
    user: host.user,
    nodePath: host.nodePath ?? config.runtime.nodePath,
    openclawPath: host.openclawPath ?? config.runtime.openclawPath,
  });
}

/** The protocol's trusted RuntimeSettings for the Namespace's host, checked against its schema. */
export function runtimeSettingsFor(config: SshComputeConfiguration, namespaceName: string): RuntimeSettings {
  const host = hostFor(config, namespaceName);
  const checked = runtimeSettings.safeParse({
    root: config.runtime.root,
    systemdUnitDirectory: config.runtime.systemdUnitDirectory,
    nodePath: host.nodePath,
    openclawPath: host.openclawPath,
    user: config.runtime.user,
    gatewayPortRange: { start: config.network.gatewayPortRange.start, end: config.network.gatewayPortRange.end },
    // Absent stays absent, so the configuration hash of an Installation without limits is unchanged.
    ...(config.runtime.gatewayLimits ? { gatewayLimits: { ...config.runtime.gatewayLimits } } : {}),
    // Only when allowed: the hash of an Installation that leaves link-local denied does not change.
    ...(config.network.allowLinkLocal === true ? { allowLinkLocal: true } : {}),
    ...(config.runtime.accountIdRange ? { accountIdRange: { ...config.runtime.accountIdRange } } : {}),
  });
  if (!checked.success) {
    // Only reachable with a configuration that did not come from loadInstallationConfiguration.
    const problems = formatIssues(checked.error);
    throw new ComputeError('configuration', `invalid runtime settings for Namespace ${quoted(namespaceName)}: ${problems}`, {
      key: CONFIGURATION_KEY,
    });
  }
  const settings = checked.data;
  Object.freeze(settings.gatewayPortRange);
  if (settings.gatewayLimits) Object.freeze(settings.gatewayLimits);
  if (settings.accountIdRange) Object.freeze(settings.accountIdRange);
  return Object.freeze(settings);
}
