// Real controllers for the campaign: SshComputeDriver instances over the system ssh client,
// configured from Installation YAML that maps Namespace names to a test host.
import { Writable } from 'node:stream';
import { loadInstallationConfiguration, REDACTED_PATHS, SshComputeDriver, type LifecycleDriver, type Logger } from '@occ-ssh/controller';
import pino from 'pino';
import type { TestHost } from '../testhost/index.js';
import { ROOT, RUNTIME_USER, UNIT_DIR } from './ops.js';

/** An Installation mapping each Namespace name to `host`, with the fixture gateway as OpenClaw. */
export function installationYaml(host: TestHost, namespaceNames: readonly string[]): string {
  return [
    'drivers:',
    '  compute:',
    '    id: compute-ssh',
    '    configuration:',
    '      ssh:',
    `        identityFile: ${host.identityFile}`,
    `        knownHostsFile: ${host.knownHostsFile}`,
    '        connectTimeoutSeconds: 10',
    '      hosts:',
    ...namespaceNames.flatMap((name) => [`        ${name}:`, `          address: ${host.address}`, `          port: ${host.port}`, '          user: root']),
    '      runtime:',
    `        nodePath: ${host.nodePath}`,
    `        openclawPath: ${host.fixtureGatewayPath}`,
    `        user: ${RUNTIME_USER}`,
    `        root: ${ROOT}`,
    `        systemdUnitDirectory: ${UNIT_DIR}`,
    '      network:',
    '        gatewayPortRange:',
    '          start: 18800',
    '          end: 18899',
    '  configuration:',
    '    id: configuration-chaos',
    '  iam:',
    '    id: iam-chaos',
    '',
  ].join('\n');
}

/** A pino logger like the driver's own (same redaction), writing into memory. */
export function memoryLogger(): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ name: 'compute-ssh', level: 'debug', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, stream);
  return { logger, text: () => chunks.join('') };
}

export interface ControllerOptions {
  logger?: Logger;
  hooks?: LifecycleDriver[];
  readinessTimeoutMs?: number;
}

/** One controller: a driver with its own executor, as a separate OCC worker process would have. */
export function controller(host: TestHost, namespaceNames: readonly string[], options: ControllerOptions = {}): SshComputeDriver {
  const driver = new SshComputeDriver({
    configuration: loadInstallationConfiguration({ text: installationYaml(host, namespaceNames) }),
    logger: options.logger ?? memoryLogger().logger,
    selectedLifecycleDrivers: (options.hooks ?? []).map((hook) => hook.id),
    ...(options.readinessTimeoutMs === undefined ? {} : { readinessTimeoutMs: options.readinessTimeoutMs }),
  });
  if (options.hooks) driver.setLifecycleDrivers(options.hooks);
  return driver;
}
