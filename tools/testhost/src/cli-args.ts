// Parses the testhost command line; usage errors are told apart so the CLI can exit 2.
import { parseArgs } from 'node:util';
import { assertHostName } from './paths.js';
import { parseVariant, type Variant } from './recipe.js';

export const USAGE = `usage: testhost build [--variant base|python|strace]
       testhost up <name> [--variant base|python|strace]   (name: ${'[a-z][a-z0-9-]{0,11}'})
       testhost down <name>
       testhost reap`;

export class UsageError extends Error {}

const COMMANDS = ['build', 'up', 'down', 'reap'] as const;
export type Command = (typeof COMMANDS)[number];

const isCommand = (word: string | undefined): word is Command => (COMMANDS as readonly (string | undefined)[]).includes(word);

export interface Parsed {
  command: Command;
  name?: string;
  variant: Variant;
}

export function parseCliArgs(argv: readonly string[]): Parsed {
  const [command, ...rest] = argv;
  if (!isCommand(command)) throw new UsageError(`unknown command ${command ?? '(none)'}`);
  let parsed;
  try {
    parsed = parseArgs({ args: [...rest], strict: true, allowPositionals: true, options: { variant: { type: 'string' } } });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  let variant: Variant = 'base';
  if (values.variant !== undefined) {
    if (command !== 'build' && command !== 'up') throw new UsageError(`--variant does not apply to ${command}`);
    try {
      variant = parseVariant(values.variant);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const wantsName = command === 'up' || command === 'down';
  if (positionals.length !== (wantsName ? 1 : 0)) throw new UsageError(wantsName ? `${command} needs exactly one host name` : `${command} takes no arguments`);
  const name = positionals[0];
  if (name !== undefined) {
    try {
      assertHostName(name);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  return name === undefined ? { command, variant } : { command, name, variant };
}
