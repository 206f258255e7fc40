// The tools' command lines (chaos, bench): util.parseArgs read one way, and one way to answer a
// usage error or --help.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

export class UsageError extends Error {
  override name = 'UsageError';
}

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;

/** Strict flags, no positionals, `--help`/`-h` added; any parse failure is a UsageError. */
export function parseFlags<const O extends ParseArgsOptionsConfig>(argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: { ...options, ...HELP } }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A comma-separated flag value (`--only a,b`): at least one name, each from `allowed`. */
export function namesFrom<T extends string>(flag: string, value: string, allowed: readonly T[]): T[] {
  const wanted = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = wanted.filter((name) => !(allowed as readonly string[]).includes(name));
  if (unknown.length > 0 || wanted.length === 0) throw new UsageError(`--${flag} takes ${allowed.join(', ')}; got ${value}`);
  return wanted as T[];
}

/**
 * Runs a tool's main and exits with its code. `--help` (a UsageError 'help') prints the usage and
 * exits 0; another usage error prints the message and the usage and exits 2; anything else exits 1.
 */
export function runCommandLine(tool: string, usage: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof UsageError) {
        if (error.message === 'help') process.stdout.write(`${usage}\n`);
        else process.stderr.write(`${tool}: ${error.message}\n\n${usage}\n`);
        process.exit(error.message === 'help' ? 0 : 2);
      }
      process.stderr.write(`${tool}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
