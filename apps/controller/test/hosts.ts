// Test support: an Installation and OCC resources that point a real driver at real test hosts.
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadInstallationConfiguration, type SshComputeConfiguration } from '../src/config/index.js';
import { DRIVER_ID, DRIVER_IMPLEMENTATION } from '@occ-ssh/protocol';
import type { AgentRevision, ComputeAgentBinding } from '../src/types.js';

export interface HostInfo {
  address: string;
  port: number;
  identityFile: string;
  knownHostsFile: string;
  nodePath: string;
  openclawPath: string;
  fixtureGatewayPath: string;
}

/** A plain copy of a host's connection facts (a TestHost exposes them as getters). */
export function hostInfo(host: HostInfo): HostInfo {
  const { address, port, identityFile, knownHostsFile, nodePath, openclawPath, fixtureGatewayPath } = host;
  return { address, port, identityFile, knownHostsFile, nodePath, openclawPath, fixtureGatewayPath };
}

export interface InstallationOptions {
  /** Use the real OpenClaw entry instead of the fixture gateway. */
  realOpenClaw?: boolean;
  transport?: 'system-ssh' | 'openssh-mux' | 'ssh2';
  knownHostsFile?: string;
  identityFile?: string;
  jumpHost?: { address: string; port: number; user: string };
}

/** One Installation whose `hosts` maps each given Namespace name to its test host. */
export function installationYaml(hosts: Record<string, HostInfo>, options: InstallationOptions = {}): string {
  const first = Object.values(hosts)[0]!;
  const lines = [
    'drivers:',
    '  compute:',
    '    id: compute-ssh',
    '    configuration:',
    ...(options.transport ? [`      transport: ${options.transport}`] : []),
    '      ssh:',
    `        identityFile: ${options.identityFile ?? first.identityFile}`,
    `        knownHostsFile: ${options.knownHostsFile ?? first.knownHostsFile}`,
    '        connectTimeoutSeconds: 3',
    ...(options.jumpHost ? ['        jumpHost:', `          address: ${options.jumpHost.address}`, `          port: ${options.jumpHost.port}`, `          user: ${options.jumpHost.user}`] : []),
    '      hosts:',
    ...Object.entries(hosts).flatMap(([name, host]) => [`        ${name}:`, `          address: ${host.address}`, `          port: ${host.port}`, '          user: root']),
    '      runtime:',
    `        nodePath: ${first.nodePath}`,
    `        openclawPath: ${options.realOpenClaw ? first.openclawPath : first.fixtureGatewayPath}`,
    '        user: openclaw',
    '        root: /var/lib/openclaw-enterprise',
    '        systemdUnitDirectory: /etc/systemd/system',
    '      network:',
    '        gatewayPortRange:',
    '          start: 18800',
    '          end: 18899',
    '',
  ];
  return lines.join('\n');
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
