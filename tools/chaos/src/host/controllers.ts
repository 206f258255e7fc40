// Real controllers for the campaign: SshComputeDriver instances over the system ssh client,
// configured from Installation YAML that maps Namespace names to a test host.
import { createLogger, loadInstallationConfiguration, SshComputeDriver, type LifecycleDriver, type Logger } from '@occ-ssh/controller';
import { lineSink } from '@occ-ssh/test-support';
import type { TestHost } from '@occ-ssh/testhost';
import { testHostInstallationYaml as sharedInstallationYaml } from '@occ-ssh/occ-fixtures';

/** An Installation mapping each Namespace name to `host`, with the fixture gateway as OpenClaw (or the real one, for native setup). */
export function installationYaml(host: TestHost, namespaceNames: readonly string[], realOpenClaw = false): string {
  return sharedInstallationYaml(Object.fromEntries(namespaceNames.map((name) => [name, host])), { otherSelections: { configuration: 'configuration-chaos', iam: 'iam-chaos' }, realOpenClaw });
}

/** The driver's own logger (same redaction) at debug level, writing into memory. */
export function memoryLogger(): { logger: Logger; text: () => string } {
  const lines: string[] = [];
  const logger = createLogger(
    { level: 'debug' },
    lineSink((line) => lines.push(line)),
  );
  return { logger, text: () => lines.map((line) => `${line}\n`).join('') };
}

export interface ControllerOptions {
  logger?: Logger;
  hooks?: LifecycleDriver[];
  readinessTimeoutMs?: number;
  /** The real OpenClaw instead of the fixture gateway: workspace setup runs its native `setup`. */
  realOpenClaw?: boolean;
}

/** One controller: a driver with its own executor, as a separate OCC worker process would have. */
export function controller(host: TestHost, namespaceNames: readonly string[], options: ControllerOptions = {}): SshComputeDriver {
  const driver = new SshComputeDriver({
    configuration: loadInstallationConfiguration({ text: installationYaml(host, namespaceNames, options.realOpenClaw) }),
    logger: options.logger ?? memoryLogger().logger,
    ...(options.readinessTimeoutMs === undefined ? {} : { readinessTimeoutMs: options.readinessTimeoutMs }),
  });
  if (options.hooks) driver.setLifecycleDrivers(options.hooks);
  return driver;
}
