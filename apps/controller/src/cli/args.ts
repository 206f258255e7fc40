// Command-line parsing for occ-ssh: one command, then --flags; bad usage exits 2.
import { parseArgs } from 'node:util';
import { MAX_LOG_LINES } from '@occ-ssh/protocol';

export const COMMANDS = ['preflight', 'deploy', 'stop', 'retire', 'delete-agent', 'delete-namespace', 'status', 'logs', 'plan', 'diagnose'] as const;
/** The commands `plan` can show before they run: the ones that change a host. */
const PLANNABLE_COMMANDS = ['deploy', 'stop', 'retire', 'delete-agent', 'delete-namespace'] as const;
export type PlannableCommand = (typeof PLANNABLE_COMMANDS)[number];
export type Command = (typeof COMMANDS)[number];

export class UsageError extends Error {
  override name = 'UsageError';
}

const OPTIONS = `options:
  --config <file>              the Installation YAML (default: $OCC_CONFIG_PATH, OCC's own path to it)
  --revision <file>            a revision JSON file: { namespace, agent, revision }
  --namespace <name>           Namespace name (selects the host)
  --namespace-id <id>          Namespace ID
  --agent-id <id>              Agent ID
  --service-principal-id <id>  ServicePrincipal ID
  --revision-id <id>           AgentRevision ID
  --revision-number <n>        AgentRevision number
  --ledger <file>              the deploy ledger (default: $XDG_STATE_HOME/occ-ssh/ledger.json)
  --readiness-timeout <sec>    readiness bound per activation, 1-120 (default 120)
  --workspace <dir>            deploy: the Agent's first AGENTS.md, SOUL.md, IDENTITY.md, USER.md found in <dir>
  --workspace-file <file>      deploy: one of those documents (repeatable; the file name says which)
  --since <time|age>           logs: entries since a UTC time (2026-01-31T12:00:00Z) or an age (90s, 15m, 2h, 7d)
  --lines <n>                  logs: the newest n entries, 1-1000 (default 100)
  --follow                     logs: then print new entries until Ctrl-C (at most 150 s)
  --previous                   logs: the gateway process before the current one (after a crash)
  --yes                        confirm delete-agent or delete-namespace (needed when not on a terminal)
  --json                       end with one machine-readable JSON result line, whatever ends the command
                               (usage errors, interrupts and logs --follow too; --follow's entries come before it)
  --verbose                    log operations to stderr (readable lines on a terminal, JSON otherwise)
  -h, --help                   show help (after a command: that command's help)
  --version                    show the controller, protocol and helper versions and the helper digests`;

const EXIT_CODES = `exit codes: 0 success, 2 usage, 3 permanent failure (do not retry unchanged),
  4 retryable failure reported by a host, 5 nothing to do (stop of a revision that was not running),
  6 not confirmed (nothing changed), 75 a host could not be reached (retryable),
  129 SIGHUP, 130 SIGINT (Ctrl-C), 143 SIGTERM (128 + the signal's number; logs --follow exits 0)

Results go to stdout; steps, progress, warnings, the recap and errors to stderr.`;

export const USAGE = `usage: occ-ssh <command> [--config <installation.yaml>] [options]

commands:
  preflight          check the local SSH files and probe every configured host
  deploy             bind, validate, prepare, commit to the ledger, activate, retire the previous revision
  stop               stop the Agent's gateway (keeps snapshots, home, state and credentials)
  retire             remove one revision's snapshot (stopping the gateway first if it is current)
  delete-agent       remove one Agent's gateway, unit, directory, port and account from its host
  delete-namespace   remove a Namespace's gateways, tree and accounts from its host
  status             show Namespaces, Agents, ports, current and served revisions, unit state, readiness
  logs               print an Agent's gateway journal (read-only), or follow it
  diagnose           check one revision's deployment as OCC's diagnoseAgentDeployment does (read-only)
  plan <command>     show the steps deploy, stop, retire, delete-agent or delete-namespace would take, changing nothing

${OPTIONS}

Run occ-ssh <command> --help for a command's details and examples.

${EXIT_CODES}`;

/** What each command does, what it needs, and how it is typically run. */
export const COMMAND_HELP: Record<Command, string> = {
  preflight: `usage: occ-ssh preflight --config <installation.yaml> [--json]

Checks the identity and known_hosts files, then probes every configured host: SSH reachability,
systemctl, flock, getent, the account tools, Node.js and OpenClaw. Every host is probed; the recap
lists each one as ok, failed (the host answered: what is missing) or unreachable (and why).

examples:
  occ-ssh preflight --config /etc/openclaw/installation.yaml
  occ-ssh preflight --config installation.yaml --json | jq '.hosts'`,
  deploy: `usage: occ-ssh deploy --config <installation.yaml> --revision <revision.json> [--ledger <file>] [--readiness-timeout <sec>] [--workspace <dir>] [--workspace-file <file>]...

The OCC worker flow for one revision: ensure the Namespace, bind the Agent, validate the harness
auth, prepare the snapshot, commit it as the active revision in the ledger (compare-and-set),
activate it (unit, current, restart, readiness) and retire the previous revision.
Flags override the revision file: --namespace, --namespace-id, --agent-id, --service-principal-id,
--revision-id, --revision-number.
--workspace and --workspace-file deliver the Agent's first workspace documents (at most 16 KiB of
UTF-8 each) before its gateway first starts, as OCC's workspace setup does; documents already there
are replaced only when absent, OpenClaw's stock text or these same documents. Status shows it.

examples:
  occ-ssh deploy --config installation.yaml --revision rev-7.json
  occ-ssh deploy --config installation.yaml --revision rev-1.json --workspace ./profile
  occ-ssh deploy --config installation.yaml --revision rev.json --revision-number 8 --revision-id rev-8`,
  stop: `usage: occ-ssh stop --config <installation.yaml> --revision <revision.json>

Stops and disables the Agent's gateway and removes current and served.json. Snapshots, home, state
and credentials stay; a later deploy activates its new revision. When this revision is not the one
running, nothing changes: it says so and exits 5.

example:
  occ-ssh stop --config installation.yaml --revision rev-7.json`,
  retire: `usage: occ-ssh retire --config <installation.yaml> --revision <revision.json>

Removes one revision's snapshot. If it is the current revision, the gateway is stopped first.

example:
  occ-ssh retire --config installation.yaml --revision rev-6.json`,
  'delete-agent': `usage: occ-ssh delete-agent --config <installation.yaml> (--revision <revision.json> | --namespace <name> --namespace-id <id> --agent-id <id> --service-principal-id <id>)

OCC's Agent deletion: after verifying the Agent's markers, account and unit, stops its gateway and
removes its unit, its directory (home, state, snapshots, password and operator env files) and its
account, which frees its gateway port. Sibling Agents are untouched; an Agent already gone is success.
Nothing is removed when anything is not this Agent's. Prints what was removed.
On a terminal it asks for the Agent ID first; elsewhere (or with --json) it needs --yes.

example:
  occ-ssh delete-agent --config installation.yaml --namespace stable --namespace-id ns-1 --agent-id agent-7 --service-principal-id sp-7 --yes`,
  'delete-namespace': `usage: occ-ssh delete-namespace --config <installation.yaml> (--revision <revision.json> | --namespace <name> --namespace-id <id>)

Removes the Namespace's gateways, unit files, tree (state included) and accounts from its host, after
validating every Agent, revision and unit in it. Nothing is removed when anything is not ours.
On a terminal it asks for the Namespace name first; elsewhere (or with --json) it needs --yes.

example:
  occ-ssh delete-namespace --config installation.yaml --namespace stable --namespace-id ns-1 --yes`,
  status: `usage: occ-ssh status --config <installation.yaml> [--namespace <name>] [--json]

Read-only: Namespaces, Agents, accounts, ports, current and served revisions, unit state, readiness
and the recent root operations on each host. Unreachable hosts are reported and the others still shown.

examples:
  occ-ssh status --config installation.yaml
  occ-ssh status --config installation.yaml --namespace stable --json`,
  logs: `usage: occ-ssh logs --config <installation.yaml> [<agent-id>] (--revision <revision.json> | --namespace <name> --namespace-id <id> --agent-id <id> --service-principal-id <id>) [--revision-id <id> --revision-number <n>] [--since <time|age>] [--lines <n>] [--follow | --previous] [--json]

Read-only: the gateway's journal on its host, read as root through the helper, selected by the fields
journald stamps itself (the Agent's unit and UID), never by the syslog tag a gateway chooses. At most
1000 entries and 256 KiB of text per answer. Every line is printed as the Agent's, with its control
characters (escape sequences, newlines) shown as \\xNN; --json prints them as JSON data.
--revision-id keeps the entries since that revision began to be served (it must be the served one).
--follow prints new entries as they come, from one journalctl --follow on the host with the same
selection and bounds, until Ctrl-C, SIGTERM or SIGHUP (then it exits 0) or for at most 150 s; it ends
with the command: nothing keeps running on the host. --json prints each entry, then the result line.
--previous (with --revision-id or a --revision file) prints the gateway process before the current one
of the revision's pod, as OCC's runtime logs do: the one systemd restarted after a crash.

examples:
  occ-ssh logs agent-7 --config installation.yaml --revision rev-7.json --since 15m
  occ-ssh logs --config installation.yaml --revision rev-7.json --follow
  occ-ssh logs --config installation.yaml --revision rev-7.json --previous`,
  diagnose: `usage: occ-ssh diagnose --config <installation.yaml> [<agent-id>] (--revision <revision.json> | --namespace <name> --namespace-id <id> --agent-id <id> --service-principal-id <id> --revision-id <id> --revision-number <n>) [--json]

Read-only: the checks OCC's diagnoseAgentDeployment returns for one revision (markers, account,
snapshot hash, unit file, unit state, current, served, the Agent's listener, /readyz, the operator env
file, disk headroom), one line each: state, component and check, and the code of a failure. No lock is
taken and nothing is written; it answers within a few seconds whatever the gateway does. It exits 0
whenever the host answered, whatever the checks found; --json prints the answer as OCC receives it.

example:
  occ-ssh diagnose agent-7 --config installation.yaml --revision rev-7.json`,
  plan: `usage: occ-ssh plan --config <installation.yaml> <deploy|stop|retire|delete-agent|delete-namespace> [that command's options] [--json]

Read-only: asks each host operation of the command what it would change, and prints its steps
(create account, create directory and write file with owner, mode and SHA-256, enable unit, restart,
remove tree, ...). The helper reads the host and runs the operation's own planner, under no lock; it
writes nothing and no audit line. A refusal is printed exactly as the command would print it. Each
plan has a digest; the real operation's audit line carries the same one as plan=. A command's later
operations depend on the earlier ones' changes: planning stops after the first operation with steps
and names the rest. It asks for no confirmation: nothing is deleted.

examples:
  occ-ssh plan deploy --config installation.yaml --revision rev-8.json
  occ-ssh plan delete-namespace --config installation.yaml --namespace stable --namespace-id ns-1 --json`,
};

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
  workspace?: string;
  workspaceFiles?: string[];
  /** plan: the command whose steps are shown. */
  planned?: PlannableCommand;
  /** logs: seconds since the epoch, the newest entries to show, and whether to follow. */
  since?: number;
  lines?: number;
  follow: boolean;
  /** logs: the pod's previous gateway process, as OCC's runtime logs read it. */
  previous: boolean;
  /** delete-agent and delete-namespace run without asking. */
  yes: boolean;
  json: boolean;
  verbose: boolean;
}

/** What to print instead of running: the general or one command's help, or the versions. */
export type Informational = { help: Command | undefined } | 'version';

/** Every flag of every command; parseCli checks which command may take which. */
const CLI_FLAGS = {
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
  workspace: { type: 'string' },
  'workspace-file': { type: 'string', multiple: true },
  since: { type: 'string' },
  lines: { type: 'string' },
  follow: { type: 'boolean', default: false },
  previous: { type: 'boolean', default: false },
  yes: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', default: false },
} as const;

/**
 * OCC's own variable for the trusted Installation document: the CLI reads the same file when
 * `--config` is not given.
 */
const CONFIG_ENV = 'OCC_CONFIG_PATH';

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliOptions | Informational {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: CLI_FLAGS,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.version) return 'version';
  const [command, ...rest] = positionals;
  const known = (COMMANDS as readonly string[]).includes(command ?? '') ? (command as Command) : undefined;
  if (values.help) return { help: known };
  if (!command) throw new UsageError('a command is required');
  if (!(COMMANDS as readonly string[]).includes(command)) throw new UsageError(`unknown command "${command}"`);
  const planned = command === 'plan' ? rest.shift() : undefined;
  if (command === 'plan' && !(PLANNABLE_COMMANDS as readonly string[]).includes(planned ?? '')) throw new UsageError(`plan needs one of ${PLANNABLE_COMMANDS.join(', ')}`);
  // logs and diagnose take the Agent ID as their one positional argument, the same as --agent-id.
  const positionalAgent = (command === 'logs' || command === 'diagnose') && rest.length === 1 ? rest.shift() : undefined;
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (positionalAgent !== undefined && values['agent-id'] !== undefined && values['agent-id'] !== positionalAgent) throw new UsageError('the Agent ID is given twice, differently');
  if ((values.since !== undefined || values.lines !== undefined || values.follow || values.previous) && command !== 'logs')
    throw new UsageError('--since, --lines, --follow and --previous are logs options');
  if (values.previous && (values.follow || values.since !== undefined)) throw new UsageError('--previous reads the whole of an ended process: it takes neither --follow nor --since');
  const config = values.config ?? (env[CONFIG_ENV] || undefined);
  if (!config) throw new UsageError(`--config <installation.yaml> is required when ${CONFIG_ENV} is not set`);
  const workspaceFiles = values['workspace-file'];
  if ((values.workspace !== undefined || workspaceFiles !== undefined) && command !== 'deploy' && planned !== 'deploy') throw new UsageError('--workspace and --workspace-file are deploy options');
  const number = values['revision-number'];
  if (number !== undefined && !/^[1-9][0-9]{0,15}$/.test(number)) throw new UsageError('--revision-number must be a positive integer');
  const timeout = values['readiness-timeout'];
  if (timeout !== undefined && !(/^[0-9]+$/.test(timeout) && Number(timeout) >= 1 && Number(timeout) <= 120)) {
    throw new UsageError('--readiness-timeout must be a whole number of seconds from 1 to 120');
  }
  return {
    command: command as Command,
    ...(planned === undefined ? {} : { planned: planned as PlannableCommand }),
    config,
    ...(values.revision === undefined ? {} : { revision: values.revision }),
    ...(values.namespace === undefined ? {} : { namespace: values.namespace }),
    ...(values['namespace-id'] === undefined ? {} : { namespaceId: values['namespace-id'] }),
    ...((values['agent-id'] ?? positionalAgent) === undefined ? {} : { agentId: (values['agent-id'] ?? positionalAgent)! }),
    ...(values['service-principal-id'] === undefined ? {} : { servicePrincipalId: values['service-principal-id'] }),
    ...(values['revision-id'] === undefined ? {} : { revisionId: values['revision-id'] }),
    ...(number === undefined ? {} : { revisionNumber: Number(number) }),
    ...(values.ledger === undefined ? {} : { ledger: values.ledger }),
    ...(timeout === undefined ? {} : { readinessTimeoutMs: Number(timeout) * 1000 }),
    ...(values.workspace === undefined ? {} : { workspace: values.workspace }),
    ...(workspaceFiles === undefined ? {} : { workspaceFiles }),
    ...(values.since === undefined ? {} : { since: parseSince(values.since) }),
    ...(values.lines === undefined ? {} : { lines: parseLines(values.lines) }),
    follow: values.follow ?? false,
    previous: values.previous ?? false,
    yes: values.yes ?? false,
    json: values.json ?? false,
    verbose: values.verbose ?? false,
  };
}

export const DEFAULT_LOG_LINES = 100;

/** `--since`: an ISO 8601 UTC time (2026-01-31T12:00:00Z) or an age (90s, 15m, 2h, 7d), as seconds since the epoch. */
export function parseSince(text: string, now = Date.now()): number {
  const age = /^([1-9][0-9]{0,5})([smhd])$/.exec(text);
  if (age) return Math.floor(now / 1000) - Number(age[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[age[2] as 's' | 'm' | 'h' | 'd'];
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(text) && !Number.isNaN(Date.parse(text))) return Math.floor(Date.parse(text) / 1000);
  throw new UsageError('--since must be a UTC time like 2026-01-31T12:00:00Z or an age like 90s, 15m, 2h or 7d');
}

export function parseLines(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LOG_LINES;
  if (!/^[1-9][0-9]{0,3}$/.test(text) || Number(text) > MAX_LOG_LINES) throw new UsageError(`--lines must be a whole number from 1 to ${MAX_LOG_LINES}`);
  return Number(text);
}
