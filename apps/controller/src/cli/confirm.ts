// Destructive commands ask first: on a terminal the operator types the name being deleted; anywhere
// else (a script, a pipe, --json) only --yes lets them run.
import { createInterface } from 'node:readline';
import { hostFor, type SshComputeConfiguration } from '../config/index.js';
import { UsageError, type CliOptions } from './args.js';
import { bindingFrom, namespaceFrom } from './resources.js';

export type Input = NodeJS.ReadableStream & { isTTY?: boolean };

const DESTRUCTIVE = new Set(['delete-agent', 'delete-namespace']);

/** What the operator must type, and the question that says what goes. */
function question(options: CliOptions, config: SshComputeConfiguration): { answer: string; text: string } {
  const namespace = options.command === 'delete-agent' ? bindingFrom(options).namespace : namespaceFrom(options);
  const host = hostFor(config, namespace.name);
  if (options.command === 'delete-agent') {
    const { agent } = bindingFrom(options);
    return {
      answer: agent.id,
      text: `delete-agent removes Agent ${agent.id} of Namespace ${namespace.name} (its gateway, unit, home, state, snapshots and account) from ${host.address}.\nType the Agent ID to confirm: `,
    };
  }
  return {
    answer: namespace.name,
    text: `delete-namespace removes Namespace ${namespace.name} (${namespace.id}) with every Agent in it (gateways, units, state and accounts) from ${host.address}.\nType the Namespace name to confirm: `,
  };
}

/** True when the command may run; false when the operator did not confirm. Throws a usage error when it cannot ask. */
export async function confirmed(options: CliOptions, config: SshComputeConfiguration, input: Input, prompt: NodeJS.WritableStream): Promise<boolean> {
  if (!DESTRUCTIVE.has(options.command) || options.yes) return true;
  if (!input.isTTY || options.json) throw new UsageError(`${options.command} deletes what it names: pass --yes to confirm when not asked on a terminal`);
  const { answer, text } = question(options, config);
  const lines = createInterface({ input, terminal: false });
  try {
    prompt.write(text);
    const line = await new Promise<string>((resolve) => {
      lines.once('line', resolve);
      lines.once('close', () => resolve(''));
    });
    return line.trim() === answer;
  } finally {
    lines.close();
  }
}
