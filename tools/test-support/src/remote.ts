// Test support: the helper client for real hosts. It builds, sends and reads each call with the
// controller's own @occ-ssh/helper-call, over the product's strict ssh client.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildHelperCall, helperInput, readHelperOutput, sealRaw, type HelperOutput, type SealedOperation } from '@occ-ssh/helper-call';
import { accountName, agentLayout, canonicalHash, sha256Hex, type AgentLayout } from '@occ-ssh/markers';
import { makeEnvelope, type AgentOwner, type Envelope, type HelperErrorBody, type OperationArgs, type OperationName, type OperationResult, type RuntimeSettings } from '@occ-ssh/protocol';
import { remoteCommand } from '@occ-ssh/ssh-client';
import { sshCall, type SshCallOptions, type SshCallResult, type SshHost } from './ssh-call.js';

/** What a test needs of a booted host (structurally the harness's TestHost). */
export interface RemoteHost extends SshHost {
  nodePath: string;
  fixtureGatewayPath: string;
  exec(argv: readonly string[], opts?: { input?: string | Buffer; timeoutMs?: number }): Promise<{ code: number | null; stdout: string; stderr: string }>;
  run(argv: readonly string[], opts?: { input?: string | Buffer; timeoutMs?: number }): Promise<string>;
}

export const ARTIFACT_PATH = fileURLToPath(new URL('../../../dist/apps/host-helper/host-helper.cjs', import.meta.url));
let artifact: Buffer | undefined;

/** The built helper, read on first use (so importing this module needs no build). */
export function helperArtifact(): Buffer {
  if (!artifact) {
    if (!existsSync(ARTIFACT_PATH)) throw new Error(`${ARTIFACT_PATH} is missing: run npx nx run @occ-ssh/host-helper:build first`);
    artifact = readFileSync(ARTIFACT_PATH);
  }
  return artifact;
}

export const ROOT = '/var/lib/openclaw-enterprise';
export const UNIT_DIR = '/etc/systemd/system';

/** Whether a helper runs on the host now: what `pgrep -f '^<node> - '` finds, as an operator would look. */
export async function helperRunning(host: RemoteHost): Promise<boolean> {
  return (await host.exec(['pgrep', '-f', `^${host.nodePath} - `])).code === 0;
}

export function runtimeFor(host: RemoteHost, overrides: Partial<RuntimeSettings> = {}): RuntimeSettings {
  return {
    root: ROOT,
    systemdUnitDirectory: UNIT_DIR,
    nodePath: host.nodePath,
    openclawPath: host.fixtureGatewayPath,
    user: 'openclaw',
    gatewayPortRange: { start: 18800, end: 18899 },
    ...overrides,
  };
}

/**
 * How one helper call travels: a strict ssh client, on the host's shared connection unless the call
 * kills or watches its client or asks for a connection of its own (ssh-call.ts), or `send` says otherwise.
 */
type ClientOptions = Pick<SshCallOptions, 'killAfterMs' | 'killAfterLines' | 'timeoutMs' | 'onSpawn' | 'ownConnection'>;

/** The client options apply to this client's own ssh call, so a caller's `send` cannot be given them. */
export type SendOptions = {
  /** Runs the remote node under this program (e.g. strace and its options). */
  wrap?: readonly string[];
} & (
  | (ClientOptions & { send?: undefined })
  | ({ [K in keyof ClientOptions]?: never } & {
      /** Sends the command line and stdin some other way (chaos: over its multiplexed connection). */
      send: (command: string, input: Buffer) => Promise<SshCallResult>;
    })
);

export type CallOptions = SendOptions & { runtime?: Partial<RuntimeSettings> };

/** What a call left: the helper's output as the controller reads it (final line, heartbeats), and how the ssh client ended. */
export interface CallOutcome extends HelperOutput {
  stdout: string;
  /** The ssh client's exit status (null when a signal ended it). */
  code: number | null;
  killed: boolean;
  ms: number;
  killedAtMs?: number;
  /** The envelope's requestId (calls built here; raw calls have none). */
  requestId?: string;
}

let counter = 0;
const nextRequestId = () => `t-${process.pid}-${++counter}`;

export function envelopeFor<O extends OperationName>(host: RemoteHost, operation: O, args: OperationArgs<O>, runtime: Partial<RuntimeSettings> = {}): Envelope {
  const settings = runtimeFor(host, runtime);
  return makeEnvelope({ operation, args, runtime: settings, configurationHash: canonicalHash(settings), requestId: nextRequestId() }) as Envelope;
}

/**
 * The wire form of an encoded operation (any text, for corrupted cases), sealed by the library's
 * sealRaw, so that the helper's decoder, not the sealing, is what judges it.
 */
export function wireFor(text: string | SealedOperation): SealedOperation {
  return typeof text === 'string' ? sealRaw(text) : text;
}

/** Runs the helper on an encoded (possibly malformed) operation, sealed exactly as the controller does. */
export function callRaw(host: RemoteHost, encoded: string, options: SendOptions = {}): Promise<CallOutcome> {
  return callWire(host, wireFor(encoded), options);
}

/** Runs the helper with exactly this argv argument and stdin prelude (which may disagree). */
export function callWire(host: RemoteHost, wire: SealedOperation, options: SendOptions = {}): Promise<CallOutcome> {
  return send(host, wire.argument === '' ? [host.nodePath, '-'] : [host.nodePath, '-', wire.argument], helperInput(helperArtifact(), wire), options);
}

async function send(host: RemoteHost, argv: readonly string[], input: Buffer, options: SendOptions): Promise<CallOutcome> {
  const node = remoteCommand(argv);
  const command = options.wrap ? `${remoteCommand([...options.wrap, '--'])} ${node}` : node;
  const { wrap: _wrap, send, ...kills } = options;
  const result = send ? await send(command, input) : await sshCall(host, command, { ...kills, input });
  return {
    ...readHelperOutput(result.stdout),
    stdout: result.stdout,
    code: result.code,
    killed: result.killed,
    ms: result.ms,
    ...(result.killedAtMs === undefined ? {} : { killedAtMs: result.killedAtMs }),
  };
}

export async function call<O extends OperationName>(host: RemoteHost, operation: O, args: OperationArgs<O>, options: CallOptions = {}): Promise<CallOutcome> {
  const { runtime, ...sending } = options;
  const built = buildHelperCall({ operation, args, runtime: runtimeFor(host, runtime), requestId: nextRequestId(), helper: helperArtifact() });
  return { ...(await send(host, built.argv, built.stdin, sending)), requestId: built.envelope.requestId };
}

/** A helper call that failed where a test needed it to succeed; `code` is the helper's error code, if it answered. */
export class HelperCallError extends Error {
  constructor(
    readonly operation: string,
    readonly code: string | undefined,
    message: string,
  ) {
    super(`${operation} failed: ${message}`);
    this.name = 'HelperCallError';
  }
}

export async function ok<O extends OperationName>(host: RemoteHost, operation: O, args: OperationArgs<O>, options: CallOptions = {}): Promise<OperationResult<O>> {
  const { line, stdout, code } = await call(host, operation, args, options);
  if (!line) throw new HelperCallError(operation, undefined, `no result line (ssh exit ${String(code)}): ${stdout.slice(-500)}`);
  if (!line.ok) throw new HelperCallError(operation, line.error.code, JSON.stringify(line.error));
  return line.result as OperationResult<O>;
}

export async function fails<O extends OperationName>(host: RemoteHost, operation: O, args: OperationArgs<O>, options: CallOptions = {}): Promise<HelperErrorBody> {
  const { line, stdout } = await call(host, operation, args, options);
  if (!line) throw new Error(`${operation}: no result line: ${stdout.slice(-500)}`);
  if (line.ok) throw new Error(`${operation} unexpectedly succeeded: ${JSON.stringify(line.result)}`);
  return line.error;
}

/** A distinct Namespace/Agent/ServicePrincipal triple per call. */
export function owner(tag: string, namespaceName = 'stable'): AgentOwner {
  return { namespace: { id: `ns-${tag}`, name: namespaceName }, agent: { id: `agent-${tag}` }, servicePrincipal: { id: `sp-${tag}` } };
}

export function document(extra: Record<string, unknown> = {}): { document: string; hash: string; auth: 'password' } {
  const text = `${JSON.stringify({ gateway: { mode: 'local', bind: 'loopback', auth: { mode: 'password', password: { source: 'env', provider: 'default', id: 'OPENCLAW_GATEWAY_PASSWORD' } } }, ...extra }, null, 2)}\n`;
  return { document: text, hash: sha256Hex(text), auth: 'password' };
}

export function prepareArgs(who: AgentOwner, number: number, extra: Record<string, unknown> = {}, revisionId = `rev-${who.agent.id}-${number}`): OperationArgs<'prepare-revision'> {
  return { owner: who, revision: { id: revisionId, number }, harness: 'openclaw/embedded', configuration: document(extra) };
}

export function activateArgs(prepared: OperationArgs<'prepare-revision'>, launchEnvironment: Record<string, string> = {}, readinessTimeoutMs = 30_000): OperationArgs<'activate-revision'> {
  return { owner: prepared.owner, revision: prepared.revision, configurationHash: prepared.configuration.hash, launchEnvironment, readinessTimeoutMs };
}

/** `stat -c` of a path on the host: owner:group mode type. */
export async function statOf(host: RemoteHost, path: string): Promise<string> {
  return (await host.run(['stat', '-c', '%U:%G %a %F', path])).trim();
}

export async function exists(host: RemoteHost, path: string): Promise<boolean> {
  return (await host.exec(['test', '-e', path])).code === 0;
}

/** Every leftover temp file of an interrupted write under the root or the unit directory. */
export async function tempFiles(host: RemoteHost): Promise<string[]> {
  const out = await host.run(['find', ROOT, UNIT_DIR, '-name', '*.tmp-*']);
  return out.split('\n').filter(Boolean);
}

/** Encodes without the sender's validation, to prove the helper refuses on its own. */
export function unvalidatedArgument(envelope: unknown): string {
  return Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64');
}

export function shell(host: RemoteHost, script: string): Promise<string> {
  return host.run(['sh', '-c', script]);
}

export function layoutOf(who: AgentOwner): AgentLayout {
  return agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
}

export function accountOf(who: AgentOwner): string {
  return accountName('openclaw', who.namespace.id, who.agent.id);
}

/** systemd's ActiveState of the Agent's unit (`systemctl is-active`). */
export async function unitState(host: RemoteHost, who: AgentOwner): Promise<string> {
  return (await host.exec(['systemctl', 'is-active', layoutOf(who).unitName])).stdout.trim();
}

/** The values of one property of the Agent's unit, one per line of `systemctl show`. */
export async function unitProperty(host: RemoteHost, who: AgentOwner, name: string): Promise<string[]> {
  const out = await host.run(['systemctl', 'show', `--property=${name}`, layoutOf(who).unitName]);
  return out
    .trim()
    .split('\n')
    .map((line) => line.slice(name.length + 1));
}

export async function mainPid(host: RemoteHost, who: AgentOwner): Promise<string> {
  return (await unitProperty(host, who, 'MainPID'))[0]!;
}

/** The environment of the Agent's running gateway, one `NAME=value` per entry. */
export async function gatewayEnviron(host: RemoteHost, who: AgentOwner): Promise<string[]> {
  return (await host.run(['cat', `/proc/${await mainPid(host, who)}/environ`])).split('\0');
}

/** Every start the fixture gateway recorded in the Agent's state directory. */
export async function gatewayStarts(host: RemoteHost, who: AgentOwner): Promise<{ pid: number; startedAt: string }[]> {
  const out = await host.run(['cat', `${layoutOf(who).state}/fixture-starts.jsonl`]);
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { pid: number; startedAt: string });
}

/**
 * The helper's own journal line for a request: how it ended and how many changes it began. Selected
 * as the helper's recentAudit selects them (apps/host-helper/src/audit/audit.ts): written by root through
 * the syslog socket, which a line forged under the same tag by another account is not.
 */
export async function auditOf(host: RemoteHost, requestId: string): Promise<{ outcome: string; changes: number } | undefined> {
  const journal = await host.run(['journalctl', '--no-pager', '-o', 'cat', '-n', '300', '_UID=0', '_TRANSPORT=syslog', 'SYSLOG_IDENTIFIER=occ-ssh-helper']);
  const line = journal.split('\n').find((entry) => entry.includes(` request=${requestId} `));
  const outcome = line && /(?:^| )outcome=(\S+)/.exec(line)?.[1];
  const changes = line && /(?:^| )changes=(\d+)/.exec(line)?.[1];
  return outcome && changes ? { outcome, changes: Number(changes) } : undefined;
}
