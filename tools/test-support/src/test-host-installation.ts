// The Installation document for booted test hosts: each Namespace name mapped to a host, the
// fixture gateway (or the real OpenClaw) as the gateway, the reference's runtime settings. The
// controller's tests, the demo, the chaos campaign and the benchmarks all build it here.

/** The connection facts of a booted test host (a TestHost, and `testhost up`'s output, satisfy it). */
export interface InstallationHost {
  address: string;
  port: number;
  identityFile: string;
  knownHostsFile: string;
  nodePath: string;
  fixtureGatewayPath: string;
  /** The real OpenClaw entry; needed only with `realOpenClaw`. */
  openclawPath?: string;
}

export interface TestHostInstallationOptions {
  /** Left out: the driver's default transport. */
  transport?: 'system-ssh' | 'openssh-mux' | 'ssh2';
  /** Run the real OpenClaw entry instead of the fixture gateway. */
  realOpenClaw?: boolean;
  /** Left out: the first host's. */
  identityFile?: string;
  /** One known_hosts file for every host (each test host has its own; a fleet needs them merged). */
  knownHostsFile?: string;
  /** Left out: 10, the reference's value. */
  connectTimeoutSeconds?: number;
  jumpHost?: { address: string; port: number; user: string };
  /** Gateway ports; a run with many Agents needs more than the default hundred. */
  portRange?: { start: number; end: number };
  maxConcurrentOperationsPerHost?: number;
  /** Agent account IDs; a run with more Agents than the system range holds needs a range. */
  accountIdRange?: { start: number; end: number };
  /** OCC's other selections (`id` per driver kind), which the driver leaves unvalidated. */
  otherSelections?: Record<string, string>;
}

export const TEST_RUNTIME = { user: 'openclaw', root: '/var/lib/openclaw-enterprise', systemdUnitDirectory: '/etc/systemd/system' } as const;

export function testHostInstallationYaml(hosts: Record<string, InstallationHost>, options: TestHostInstallationOptions = {}): string {
  const first = Object.values(hosts)[0];
  if (!first) throw new Error('an Installation needs at least one host');
  const openclawPath = options.realOpenClaw ? first.openclawPath : first.fixtureGatewayPath;
  if (openclawPath === undefined) throw new Error("realOpenClaw needs the host's openclawPath");
  const range = options.portRange ?? { start: 18800, end: 18899 };
  const jump = options.jumpHost;
  return [
    'drivers:',
    '  compute:',
    '    id: compute-ssh',
    '    configuration:',
    ...(options.transport === undefined ? [] : [`      transport: ${options.transport}`]),
    ...(options.maxConcurrentOperationsPerHost === undefined ? [] : [`      maxConcurrentOperationsPerHost: ${options.maxConcurrentOperationsPerHost}`]),
    '      ssh:',
    `        identityFile: ${options.identityFile ?? first.identityFile}`,
    `        knownHostsFile: ${options.knownHostsFile ?? first.knownHostsFile}`,
    `        connectTimeoutSeconds: ${options.connectTimeoutSeconds ?? 10}`,
    ...(jump ? ['        jumpHost:', `          address: ${jump.address}`, `          port: ${jump.port}`, `          user: ${jump.user}`] : []),
    '      hosts:',
    ...Object.entries(hosts).flatMap(([name, host]) => [`        ${name}:`, `          address: ${host.address}`, `          port: ${host.port}`, '          user: root']),
    '      runtime:',
    `        nodePath: ${first.nodePath}`,
    `        openclawPath: ${openclawPath}`,
    `        user: ${TEST_RUNTIME.user}`,
    `        root: ${TEST_RUNTIME.root}`,
    `        systemdUnitDirectory: ${TEST_RUNTIME.systemdUnitDirectory}`,
    ...(options.accountIdRange ? ['        accountIdRange:', `          start: ${options.accountIdRange.start}`, `          end: ${options.accountIdRange.end}`] : []),
    '      network:',
    '        gatewayPortRange:',
    `          start: ${range.start}`,
    `          end: ${range.end}`,
    ...Object.entries(options.otherSelections ?? {}).flatMap(([kind, id]) => [`  ${kind}:`, `    id: ${id}`]),
    '',
  ].join('\n');
}
