// Parses the testhost command line; usage errors are told apart so the CLI can exit 2.
import { assertHostName } from './paths.js';
import { parseVariant, type Variant } from './recipe.js';

export const USAGE = `usage: testhost build [--variant base|python|strace]
       testhost up <name> [--variant base|python|strace]   (name: ${'[a-z][a-z0-9-]{0,11}'})
       testhost down <name>
       testhost reap`;

export class UsageError extends Error {}

export interface Parsed {
  command: string;
  name?: string;
  variant: Variant;
}

export function parseCliArgs(argv: readonly string[]): Parsed {
  const [command, ...rest] = argv;
  if (!command || !['build', 'up', 'down', 'reap'].includes(command)) throw new UsageError(`unknown command ${command ?? '(none)'}`);
  const positional: string[] = [];
  let variant: Variant = 'base';
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (arg === '--variant' || arg.startsWith('--variant=')) {
      if (command !== 'build' && command !== 'up') throw new UsageError(`--variant does not apply to ${command}`);
      const value = arg === '--variant' ? rest[++i] : arg.slice('--variant='.length);
      try {
        variant = parseVariant(value);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  const wantsName = command === 'up' || command === 'down';
  if (positional.length !== (wantsName ? 1 : 0)) throw new UsageError(wantsName ? `${command} needs exactly one host name` : `${command} takes no arguments`);
  const name = positional[0];
  if (name !== undefined) {
    try {
      assertHostName(name);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  return name === undefined ? { command, variant } : { command, name, variant };
}
