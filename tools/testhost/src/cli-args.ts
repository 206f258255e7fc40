// Parses the testhost command line; usage errors are told apart so the CLI can exit 2.
import { parseArgs } from 'node:util';
import { assertHostName } from './paths.js';
import { imageChoiceFromEnv, parseDebian, parseHostNode, parseVariant, type ImageChoice, type Variant } from './recipe.js';

export const USAGE = `usage: testhost build [--variant base|python|strace] [--debian bookworm|trixie] [--node 24|26]
       testhost up <name> [--variant base|python|strace] [--debian bookworm|trixie] [--node 24|26]   (name: ${'[a-z][a-z0-9-]{0,11}'})
       (--debian and --node default to OCC_TESTHOST_DEBIAN and OCC_TESTHOST_NODE, else bookworm and 24)
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
  image: ImageChoice;
}

export function parseCliArgs(argv: readonly string[]): Parsed {
  const [command, ...rest] = argv;
  if (!isCommand(command)) throw new UsageError(`unknown command ${command ?? '(none)'}`);
  let parsed;
  try {
    parsed = parseArgs({ args: [...rest], strict: true, allowPositionals: true, options: { variant: { type: 'string' }, debian: { type: 'string' }, node: { type: 'string' } } });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  let variant: Variant = 'base';
  let image: ImageChoice;
  for (const option of ['variant', 'debian', 'node'] as const) {
    if (values[option] !== undefined && command !== 'build' && command !== 'up') throw new UsageError(`--${option} does not apply to ${command}`);
  }
  try {
    if (values.variant !== undefined) variant = parseVariant(values.variant);
    image = imageChoiceFromEnv();
    if (values.debian !== undefined) image = { ...image, debian: parseDebian(values.debian) };
    if (values.node !== undefined) image = { ...image, node: parseHostNode(values.node) };
  } catch (e) {
    throw new UsageError((e as Error).message);
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
  return name === undefined ? { command, variant, image } : { command, name, variant, image };
}
