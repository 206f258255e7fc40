// Test support: an Installation and OCC resources that point a real driver at real test hosts.
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadInstallationConfiguration, type SshComputeConfiguration } from '../src/config/index.js';
import { DRIVER_ID, DRIVER_IMPLEMENTATION } from '@occ-ssh/protocol';
import { testHostInstallationYaml, type InstallationHost, type TestHostInstallationOptions } from '@occ-ssh/test-support';
import type { AgentRevision, ComputeAgentBinding } from '../src/types.js';

/** A test host's connection facts, with the real OpenClaw entry beside the fixture gateway. */
export type HostInfo = Required<InstallationHost>;

/** A plain copy of a host's connection facts (a TestHost exposes them as getters). */
export function hostInfo(host: HostInfo): HostInfo {
  const { address, port, identityFile, knownHostsFile, nodePath, openclawPath, fixtureGatewayPath } = host;
  return { address, port, identityFile, knownHostsFile, nodePath, openclawPath, fixtureGatewayPath };
}

export type InstallationOptions = Pick<TestHostInstallationOptions, 'realOpenClaw' | 'transport' | 'knownHostsFile' | 'identityFile' | 'jumpHost'>;

/**
 * One Installation whose `hosts` maps each given Namespace name to its test host; a 3-second
 * connect timeout, so the tests of unreachable hosts end soon.
 */
export function installationYaml(hosts: Record<string, HostInfo>, options: InstallationOptions = {}): string {
  return testHostInstallationYaml(hosts, { ...options, connectTimeoutSeconds: 3 });
}

export function configFor(hosts: Record<string, HostInfo>, options: InstallationOptions = {}): SshComputeConfiguration {
  return loadInstallationConfiguration({ text: installationYaml(hosts, options) });
}

/** A pino logger writing into memory, so tests can assert what logs contain and what they never do. */
export function memoryLogger() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), text: () => chunks.join('') };
}

export function agentBinding(tag: string, namespaceName: string): ComputeAgentBinding {
  return {
    namespace: { id: `ns-${tag}`, name: namespaceName },
    agent: { id: `agent-${tag}`, namespaceId: `ns-${tag}`, servicePrincipalId: `sp-${tag}` },
  };
}

/** Revision `number` of the bound Agent in OCC's shape, for the default driver identity. */
export function revisionOf(binding: ComputeAgentBinding, number: number, configuration: Record<string, unknown> = {}): AgentRevision {
  return {
    id: `rev-${binding.agent.id}-${number}`,
    namespaceId: binding.namespace.id,
    agentId: binding.agent.id,
    revision: number,
    servicePrincipalId: binding.agent.servicePrincipalId,
    harness: { id: 'openclaw', version: '2026.1.0', mode: 'embedded' },
    compute: { id: DRIVER_ID, implementation: DRIVER_IMPLEMENTATION },
    harnessAuth: { method: 'runtime' },
    configuration: { gateway: { mode: 'local', bind: 'loopback' }, ...configuration },
  };
}
