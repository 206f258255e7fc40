// Real controllers for the campaign: SshComputeDriver instances over the system ssh client,
// configured from Installation YAML that maps Namespace names to a test host.
import { Writable } from 'node:stream';
import { loadInstallationConfiguration, REDACTED_PATHS, SshComputeDriver, type LifecycleDriver, type Logger } from '@occ-ssh/controller';
import pino from 'pino';
import type { TestHost } from '@occ-ssh/testhost';
import { testHostInstallationYaml as sharedInstallationYaml } from '@occ-ssh/occ-fixtures';

/** An Installation mapping each Namespace name to `host`, with the fixture gateway as OpenClaw. */
export function installationYaml(host: TestHost, namespaceNames: readonly string[]): string {
  return sharedInstallationYaml(Object.fromEntries(namespaceNames.map((name) => [name, host])), { otherSelections: { configuration: 'configuration-chaos', iam: 'iam-chaos' } });
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
    ...(options.readinessTimeoutMs === undefined ? {} : { readinessTimeoutMs: options.readinessTimeoutMs }),
  });
  if (options.hooks) driver.setLifecycleDrivers(options.hooks);
  return driver;
}
