// Test support: sends the built helper artifact to a real test host over strict ssh.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { accountName, agentLayout, canonicalHash, sha256Hex, type AgentLayout } from '@occ-ssh/markers';
import {
  encodeArgument,
  findResultLine,
  helperInput,
  makeEnvelope,
  sealOperation,
  type SealedOperation,
  type AgentOwner,
  type Envelope,
  type HelperErrorBody,
  type OperationArgs,
  type OperationName,
  type OperationResult,
  type ResultLine,
  type RuntimeSettings,
} from '@occ-ssh/protocol';

/** What a test needs of a booted host (structurally the harness's TestHost). */
export interface RemoteHost {
  address: string;
  port: number;
  user: string;
  identityFile: string;
  knownHostsFile: string;
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

export interface CallOptions {
  runtime?: Partial<RuntimeSettings>;
  /** Kill the local ssh client (SIGKILL) this many ms after sending. */
  killAfterMs?: number;
}

export interface CallOutcome {
  line: ResultLine | undefined;
  stdout: string;
  killed: boolean;
  ms: number;
}

let counter = 0;

export function envelopeFor<O extends OperationName>(host: RemoteHost, operation: O, args: OperationArgs<O>, runtime: Partial<RuntimeSettings> = {}): Envelope {
  const settings = runtimeFor(host, runtime);
  return makeEnvelope({ operation, args, runtime: settings, configurationHash: canonicalHash(settings), requestId: `t-${process.pid}-${++counter}` }) as Envelope;
}

/** Runs the helper on an encoded (possibly malformed) operation, sealed exactly as the controller does. */
export function callRaw(host: RemoteHost, encoded: string, killAfterMs?: number): Promise<CallOutcome> {
  return callWire(host, sealOperation(encoded), killAfterMs);
}

/** Runs the helper with exactly this argv argument and stdin prelude (which may disagree). */
export function callWire(host: RemoteHost, wire: SealedOperation, killAfterMs?: number): Promise<CallOutcome> {
  const started = Date.now();
  const argv = [
    '-F', 'none', '-T', '-i', host.identityFile, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', 'IdentitiesOnly=yes',
    '-o', `UserKnownHostsFile=${host.knownHostsFile}`, '-o', 'LogLevel=ERROR', '-p', String(host.port), '-l', host.user, '--', host.address,
    `${host.nodePath} - ${wire.argument}`,
  ];
  return new Promise((resolve) => {
    const child = spawn('ssh', argv, { stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stdin.on('error', () => undefined);
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => ((killed = true), child.kill('SIGKILL')), killAfterMs);
    child.on('close', () => {
      if (timer) clearTimeout(timer);
      resolve({ line: findResultLine(stdout), stdout, killed, ms: Date.now() - started });
    });
    child.stdin.end(helperInput(helperArtifact(), wire));
  });
}

export function call<O extends OperationName>(host: RemoteHost, operation: O, args: OperationArgs<O>, options: CallOptions = {}): Promise<CallOutcome> {
  return callRaw(host, encodeArgument(envelopeFor(host, operation, args, options.runtime)), options.killAfterMs);
}

export async function ok<O extends OperationName>(host: RemoteHost, operation: O, args: OperationArgs<O>, options: CallOptions = {}): Promise<OperationResult<O>> {
  const { line, stdout } = await call(host, operation, args, options);
  if (!line?.ok) throw new Error(`${operation} failed: ${line ? JSON.stringify(line.error) : stdout.slice(-500)}`);
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
  return out.trim().split('\n').map((line) => line.slice(name.length + 1));
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
  return out.trim().split('\n').map((line) => JSON.parse(line) as { pid: number; startedAt: string });
}
