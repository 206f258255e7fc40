// occ-ssh: the operator CLI over the SshComputeDriver library.
import { bundleDigest } from '@occ-ssh/helper-call';
import { ComputeError, PROTOCOL_VERSION, toComputeError } from '@occ-ssh/protocol';
import { loadInstallationConfiguration } from '../config/index.js';
import { SshComputeDriver } from '../driver.js';
import { loadHelperArtifact } from '../deps.js';
import { createLogger } from '../logging.js';
import { DRIVER_VERSION } from '../version.js';
import { COMMAND_HELP, USAGE, UsageError, parseCli, type CliOptions } from './args.js';
import { HostsFailed, deleteAgent, deleteNamespace, deploy, preflight, retire, status, stop, type CommandContext } from './commands.js';
import { confirmed, type Input } from './confirm.js';
import { diagnose } from './diagnose.js';
import { printableJson } from './journal-text.js';
import { logDestination } from './log-lines.js';
import { logs } from './logs.js';
import { plan } from './plan.js';
import { Reporter, seconds } from './report.js';

/** 4 and 75 are both retryable: 4 when a host answered with a failure, 75 when none could be reached. */
/** 5: the command found nothing to do (stop of a revision that was not running); nothing changed. 6: a destructive command was not confirmed. */
/** A signal ends a command with 128 + its number, as a shell reports it; 0 when logs --follow ends on one: following until told to stop is its success. */
export const EXIT = { ok: 0, usage: 2, permanent: 3, failed: 4, nothingToDo: 5, notConfirmed: 6, unreachable: 75, hangup: 129, interrupted: 130, terminated: 143 } as const;

/** The signals that end a run, each with its exit code (128 + the signal's number). */
export const SIGNAL_EXIT = { SIGHUP: EXIT.hangup, SIGINT: EXIT.interrupted, SIGTERM: EXIT.terminated } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT;

/** The exit code for an aborted run: its signal's, or Ctrl-C's when the abort names none. */
export function exitForSignal(reason: unknown): number {
  return typeof reason === 'string' && reason in SIGNAL_EXIT ? SIGNAL_EXIT[reason as StopSignal] : EXIT.interrupted;
}

const RUN = { preflight, deploy, stop, retire, 'delete-agent': deleteAgent, 'delete-namespace': deleteNamespace, status, logs, plan, diagnose } as const;

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

/** Transport failures and time-outs mean the host was not reached; anything else a host reported. */
function isUnreachable(error: ComputeError): boolean {
  return error.code === 'transport' || error.code === 'timeout';
}

export function exitFor(errors: readonly ComputeError[]): number {
  if (errors.some((e) => e.permanent)) return EXIT.permanent;
  if (errors.some((e) => !isUnreachable(e))) return EXIT.failed;
  return EXIT.unreachable;
}

export interface CliRunOptions {
  /**
   * Aborted on SIGINT, SIGTERM or SIGHUP, with the signal's name as the reason: the run stops waiting,
   * closes connections, removes its temporary files and exits with that signal's code.
   */
  signal?: AbortSignal;
  /** Where a destructive command reads its confirmation; process.stdin by default. */
  input?: Input;
}

export async function runCli(argv: readonly string[], out: Stream = process.stdout, err: Stream = process.stderr, run: CliRunOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const json = argv.includes('--json');
  let options: ReturnType<typeof parseCli>;
  try {
    options = parseCli(argv, env);
  } catch (error) {
    if (json) out.write(`${printableJson({ ok: false, error: { code: 'usage', message: (error as Error).message } })}\n`);
    else err.write(`occ-ssh: ${(error as Error).message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (options === 'version') {
    out.write(`${versionText()}\n`);
    return EXIT.ok;
  }
  if ('help' in options) {
    out.write(`${options.help ? COMMAND_HELP[options.help] : USAGE}\n`);
    return EXIT.ok;
  }
  return execute(options, out, err, run.signal, run.input ?? process.stdin);
}

async function execute(options: CliOptions, out: Stream, err: Stream, signal: AbortSignal | undefined, input: Input): Promise<number> {
  const report = new Reporter(options.json, out, err, Boolean(err.isTTY));
  /** With --json every command ends with its one result line, whatever ends it. */
  const failed = (code: string, message: string) => {
    if (options.json) out.write(`${printableJson({ ok: false, command: options.command, error: { code, message }, steps: report.steps, hosts: report.hosts })}\n`);
  };
  const succeeded = (result: unknown) => {
    if (options.json) out.write(`${printableJson({ ok: true, command: options.command, result, steps: report.steps, hosts: report.hosts, totalMs: report.totalMs() })}\n`);
  };
  let driver: SshComputeDriver | undefined;
  try {
    const config = loadInstallationConfiguration({ path: options.config });
    // Asked before the first connection: a declined deletion reaches no host.
    if (!(await confirmed(options, config, input, err))) {
      err.write(`occ-ssh ${options.command}: not confirmed; nothing changed\n`);
      failed('not-confirmed', 'not confirmed; nothing changed');
      return EXIT.notConfirmed;
    }
    // Failures are reported by the CLI itself; without --verbose only unexpected errors are logged.
    const logger = createLogger({ name: undefined, level: options.verbose ? 'info' : 'error' }, logDestination(err));
    driver = new SshComputeDriver({
      configuration: config,
      logger,
      // The driver's own waits (lock, hooks, SSH) end with the CLI's interrupt, not only the CLI's.
      ...(signal ? { getOperationAbortSignal: () => signal } : {}),
      ...(options.readinessTimeoutMs === undefined ? {} : { readinessTimeoutMs: options.readinessTimeoutMs }),
      onHelperProgress: (progress) => report.helperAlive(progress.heartbeats),
    });
    const context: CommandContext = { options, config, driver, report, print: (text) => out.write(text), ...(signal ? { signal } : {}) };
    const work: Promise<unknown> = RUN[options.command](context);
    // Following ends on the interrupt by itself: its session closes, and journalctl with it on the host.
    const following = options.command === 'logs' && options.follow;
    const result = following ? await work : await untilAborted(work, signal);
    if (result === 'interrupted' || (following && isInterruptedFollow(result))) {
      // Said only once it is true: close() ends the connections and removes the temporary files.
      const closing = driver;
      driver = undefined;
      await closing.close();
      if (following) {
        err.write('occ-ssh logs: stopped following; connections closed\n');
        succeeded(result);
        return EXIT.ok;
      }
      err.write(`occ-ssh ${options.command}: interrupted; connections closed and temporary files removed (a systemd job already submitted on a host may still complete)\n`);
      failed('cancelled', `interrupted by ${typeof signal?.reason === 'string' ? signal.reason : 'a signal'}; connections closed`);
      return exitForSignal(signal?.reason);
    }
    report.recap();
    if (isNothingDone(result)) {
      succeeded(result);
      if (!options.json) out.write(`${options.command}: ${result.nothingDone}; nothing changed\n`);
      return EXIT.nothingToDo;
    }
    succeeded(result);
    // The entries are the result of logs; every other command closes with one line saying it is done.
    if (!options.json && options.command !== 'logs') out.write(`${options.command}: done in ${seconds(report.totalMs())}\n`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      if (options.json) out.write(`${printableJson({ ok: false, command: options.command, error: { code: 'usage', message: error.message } })}\n`);
      else err.write(`occ-ssh: ${error.message}\n\n${COMMAND_HELP[options.command]}\n`);
      return EXIT.usage;
    }
    report.recap();
    const failures = error instanceof HostsFailed ? [...error.failures.values()] : [toComputeError(error)];
    if (options.json) {
      const shape = (e: ComputeError) => ({ code: e.code, failure: e.failure, message: e.message, ...e.details });
      out.write(
        `${printableJson({ ok: false, command: options.command, error: shape(toComputeError(error)), ...(failures.length > 1 ? { failures: failures.map(shape) } : {}), steps: report.steps, hosts: report.hosts })}\n`,
      );
    } else {
      for (const failure of failures) {
        const where = Object.entries(failure.details)
          .map(([key, value]) => `${key}=${value}`)
          .join(' ');
        err.write(`occ-ssh ${options.command}: ${failure.failure} ${failure.code} error: ${failure.message}${where ? `\n  (${where})` : ''}\n`);
      }
    }
    return exitFor(failures);
  } finally {
    await driver?.close();
  }
}

function isInterruptedFollow(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { ended?: unknown }).ended === 'interrupted';
}

/** A command's result when it found nothing to do: `nothingDone` says why. */
function isNothingDone(result: unknown): result is { nothingDone: string } {
  return typeof result === 'object' && result !== null && typeof (result as { nothingDone?: unknown }).nothingDone === 'string';
}

/** The work's result, or 'interrupted' as soon as the signal aborts (the work is left to the close). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | 'interrupted'> {
  if (!signal) return work;
  if (signal.aborted) {
    // Left to the close: its failure (cancelled) is not the run's outcome.
    work.catch(() => undefined);
    return Promise.resolve('interrupted');
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve('interrupted');
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function versionText(): string {
  const lines = [`occ-ssh ${DRIVER_VERSION} (protocol ${PROTOCOL_VERSION})`];
  try {
    const artifact = loadHelperArtifact();
    lines.push(
      `host helper: ${artifact.bytes.length} bytes, artifact sha256 ${artifact.sha256}`,
      `helper bundle sha256 ${bundleDigest(artifact.bytes)} (as in the hosts' audit lines: journalctl _UID=0 _TRANSPORT=syslog SYSLOG_IDENTIFIER=occ-ssh-helper)`,
    );
  } catch (error) {
    lines.push(`host helper: ${(error as Error).message}`);
  }
  return lines.join('\n');
}
