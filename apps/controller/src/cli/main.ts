// occ-ssh: the operator CLI over the SshComputeDriver library.
import pino from 'pino';
import { toComputeError } from '@occ-ssh/protocol';
import { loadInstallationConfiguration } from '../config/index.js';
import { SshComputeDriver } from '../driver.js';
import { REDACTED_PATHS } from '../logging.js';
import { USAGE, UsageError, parseCli, type CliOptions } from './args.js';
import { deleteNamespace, deploy, preflight, retire, status, stop, type CommandContext } from './commands.js';
import { Reporter, seconds } from './report.js';

export const EXIT = { ok: 0, usage: 2, permanent: 3, retryable: 75 } as const;

const RUN = { preflight, deploy, stop, retire, 'delete-namespace': deleteNamespace, status } as const;

export async function runCli(argv: readonly string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  let options: CliOptions | 'help';
  try {
    options = parseCli(argv);
  } catch (error) {
    err.write(`occ-ssh: ${(error as Error).message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (options === 'help') {
    out.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const report = new Reporter(options.json, out);
  let driver: SshComputeDriver | undefined;
  try {
    const config = loadInstallationConfiguration({ path: options.config });
    const logger = pino({ level: options.verbose ? 'info' : 'warn', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, pino.destination(2));
    driver = new SshComputeDriver({
      configuration: config,
      logger,
      ...(options.readinessTimeoutMs === undefined ? {} : { readinessTimeoutMs: options.readinessTimeoutMs }),
    });
    const result = await RUN[options.command]({ options, config, driver, report } satisfies CommandContext);
    if (options.json) out.write(`${JSON.stringify({ ok: true, command: options.command, result, steps: report.steps, totalMs: report.totalMs() })}\n`);
    else out.write(`${options.command}: done in ${seconds(report.totalMs())}\n`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      err.write(`occ-ssh: ${error.message}\n\n${USAGE}\n`);
      return EXIT.usage;
    }
    const failure = toComputeError(error);
    const where = Object.entries(failure.details).map(([key, value]) => `${key}=${value}`).join(' ');
    if (options.json) {
      out.write(`${JSON.stringify({ ok: false, command: options.command, error: { code: failure.code, failure: failure.failure, message: failure.message, ...failure.details }, steps: report.steps })}\n`);
    } else {
      err.write(`occ-ssh ${options.command}: ${failure.failure} ${failure.code} error: ${failure.message}${where ? `\n  (${where})` : ''}\n`);
    }
    return failure.failure === 'permanent' ? EXIT.permanent : EXIT.retryable;
  } finally {
    await driver?.close();
  }
}
