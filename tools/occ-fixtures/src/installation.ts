// An Installation document for test hosts: each Namespace name mapped to a host, the fixture
// gateway as OpenClaw, the reference's runtime settings; and AgentRevisions as OCC sends them.
// Shared by the benchmark and the chaos campaign, so both drive the driver exactly as OCC would.
import type { AgentRevision, ComputeAgentBinding } from '@occ-ssh/controller';

/** An AgentRevision as OCC sends it, for this driver, with the given OpenClaw configuration. */
export function occRevision(binding: ComputeAgentBinding, number: number, configuration: Record<string, unknown>): AgentRevision {
  return {
    id: `rev-${binding.agent.id}-${number}`,
    revision: number,
    namespaceId: binding.namespace.id,
    agentId: binding.agent.id,
    servicePrincipalId: binding.agent.servicePrincipalId,
    harness: { id: 'openclaw', version: '1.0.0', mode: 'embedded' },
    compute: { id: 'compute-ssh', implementation: 'occ/ssh' },
    harnessAuth: { method: 'runtime' },
    configuration: configuration as AgentRevision['configuration'],
  };
}

/** The connection facts of a booted test host (a TestHost satisfies it). */
export interface InstallationHost {
  address: string;
  port: number;
  identityFile: string;
  knownHostsFile: string;
  nodePath: string;
  fixtureGatewayPath: string;
}

export interface TestHostInstallationOptions {
  /** Left out: the driver's default transport. */
  transport?: 'system-ssh' | 'openssh-mux' | 'ssh2';
  /** Gateway ports; a run with many Agents needs more than the default hundred. */
  portRange?: { start: number; end: number };
  maxConcurrentOperationsPerHost?: number;
  /** One known_hosts file for every host (each test host has its own; a fleet needs them merged). */
  knownHostsFile?: string;
  /** OCC's other selections (`id` per driver kind), which the driver leaves unvalidated. */
  otherSelections?: Record<string, string>;
}

export const TEST_RUNTIME = { user: 'openclaw', root: '/var/lib/openclaw-enterprise', systemdUnitDirectory: '/etc/systemd/system' } as const;

export function testHostInstallationYaml(hosts: Record<string, InstallationHost>, options: TestHostInstallationOptions = {}): string {
  const first = Object.values(hosts)[0];
  if (!first) throw new Error('an Installation needs at least one host');
  const range = options.portRange ?? { start: 18800, end: 18899 };
  return [
    'drivers:',
    '  compute:',
    '    id: compute-ssh',
    '    configuration:',
    ...(options.transport === undefined ? [] : [`      transport: ${options.transport}`]),
    ...(options.maxConcurrentOperationsPerHost === undefined ? [] : [`      maxConcurrentOperationsPerHost: ${options.maxConcurrentOperationsPerHost}`]),
    '      ssh:',
    `        identityFile: ${first.identityFile}`,
    `        knownHostsFile: ${options.knownHostsFile ?? first.knownHostsFile}`,
    '        connectTimeoutSeconds: 10',
    '      hosts:',
    ...Object.entries(hosts).flatMap(([name, host]) => [`        ${name}:`, `          address: ${host.address}`, `          port: ${host.port}`, '          user: root']),
    '      runtime:',
    `        nodePath: ${first.nodePath}`,
    `        openclawPath: ${first.fixtureGatewayPath}`,
    `        user: ${TEST_RUNTIME.user}`,
    `        root: ${TEST_RUNTIME.root}`,
    `        systemdUnitDirectory: ${TEST_RUNTIME.systemdUnitDirectory}`,
    '      network:',
    '        gatewayPortRange:',
    `          start: ${range.start}`,
    `          end: ${range.end}`,
    ...Object.entries(options.otherSelections ?? {}).flatMap(([kind, id]) => [`  ${kind}:`, `    id: ${id}`]),
    '',
  ].join('\n');
}
