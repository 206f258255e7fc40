// Command-line parsing for occ-ssh: one command, then --flags; bad usage exits 2.
import { parseArgs } from 'node:util';

export const COMMANDS = ['preflight', 'deploy', 'stop', 'retire', 'delete-namespace', 'status'] as const;
export type Command = (typeof COMMANDS)[number];

export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `usage: occ-ssh <command> --config <installation.yaml> [options]

commands:
  preflight          check the local SSH files and probe every configured host
  deploy             bind, validate, prepare, commit to the ledger, activate, retire the previous revision
  stop               stop the Agent's gateway (keeps snapshots, home, state and credentials)
  retire             remove one revision's snapshot (stopping the gateway first if it is current)
  delete-namespace   remove a Namespace's gateways, tree and accounts from its host
  status             show Namespaces, Agents, ports, current and served revisions, unit state, readiness

options:
  --config <file>              the Installation YAML (required)
  --revision <file>            a revision JSON file: { namespace, agent, revision }
  --namespace <name>           Namespace name (selects the host)
  --namespace-id <id>          Namespace ID
  --agent-id <id>              Agent ID
  --service-principal-id <id>  ServicePrincipal ID
  --revision-id <id>           AgentRevision ID
  --revision-number <n>        AgentRevision number
  --ledger <file>              the deploy ledger (default: $XDG_STATE_HOME/occ-ssh/ledger.json)
  --readiness-timeout <sec>    readiness bound per activation, 1-120 (default 120)
  --json                       print one machine-readable JSON result
  --verbose                    log operations to stderr
  -h, --help                   show this help

exit codes: 0 success, 2 usage, 3 permanent failure, 75 retryable failure`;

export interface CliOptions {
  command: Command;
  config: string;
  revision?: string;
  namespace?: string;
  namespaceId?: string;
  agentId?: string;
  servicePrincipalId?: string;
  revisionId?: string;
  revisionNumber?: number;
  ledger?: string;
  readinessTimeoutMs?: number;
  json: boolean;
  verbose: boolean;
}

export function parseCli(argv: readonly string[]): CliOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string' },
        revision: { type: 'string' },
        namespace: { type: 'string' },
        'namespace-id': { type: 'string' },
        'agent-id': { type: 'string' },
        'service-principal-id': { type: 'string' },
        'revision-id': { type: 'string' },
        'revision-number': { type: 'string' },
        ledger: { type: 'string' },
        'readiness-timeout': { type: 'string' },
        json: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [command, ...rest] = positionals;
  if (!command) throw new UsageError('a command is required');
  if (!(COMMANDS as readonly string[]).includes(command)) throw new UsageError(`unknown command "${command}"`);
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (!values.config) throw new UsageError('--config <installation.yaml> is required');
  const number = values['revision-number'];
  if (number !== undefined && !/^[1-9][0-9]{0,15}$/.test(number)) throw new UsageError('--revision-number must be a positive integer');
  const timeout = values['readiness-timeout'];
  if (timeout !== undefined && !(/^[0-9]+$/.test(timeout) && Number(timeout) >= 1 && Number(timeout) <= 120)) {
    throw new UsageError('--readiness-timeout must be a whole number of seconds from 1 to 120');
  }
  return {
    command: command as Command,
    config: values.config,
    ...(values.revision === undefined ? {} : { revision: values.revision }),
    ...(values.namespace === undefined ? {} : { namespace: values.namespace }),
    ...(values['namespace-id'] === undefined ? {} : { namespaceId: values['namespace-id'] }),
    ...(values['agent-id'] === undefined ? {} : { agentId: values['agent-id'] }),
    ...(values['service-principal-id'] === undefined ? {} : { servicePrincipalId: values['service-principal-id'] }),
    ...(values['revision-id'] === undefined ? {} : { revisionId: values['revision-id'] }),
    ...(number === undefined ? {} : { revisionNumber: Number(number) }),
    ...(values.ledger === undefined ? {} : { ledger: values.ledger }),
    ...(timeout === undefined ? {} : { readinessTimeoutMs: Number(timeout) * 1000 }),
    json: values.json ?? false,
    verbose: values.verbose ?? false,
  };
}
