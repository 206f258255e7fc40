// Helper calls exactly as the controller makes them: the operation sealed on stdin ahead of the
// built artifact, the one base64 JSON header argument, a fresh strict ssh client (which the
// campaign may SIGKILL at a chosen instant).
import { canonicalHash, sha256Hex } from '@occ-ssh/markers';
import {
  PROTOCOL_VERSION,
  SEALED_KEY,
  encodeArgument,
  findResultLine,
  helperInput,
  makeEnvelope,
  sealOperation,
  type SealedOperation,
  type AgentOwner,
  type Envelope,
  type OperationArgs,
  type OperationName,
  type OperationResult,
  type ResultLine,
  type RuntimeSettings,
} from '@occ-ssh/protocol';
import { TEST_RUNTIME } from '@occ-ssh/occ-fixtures';
import { ARTIFACT_PATH, helperArtifact } from '@occ-ssh/test-support';
import { remoteCommand } from '@occ-ssh/ssh-client';
import type { HostLink } from './ssh.js';

export { ARTIFACT_PATH, helperArtifact };

export const ROOT = TEST_RUNTIME.root;
export const UNIT_DIR = TEST_RUNTIME.systemdUnitDirectory;
export const RUNTIME_USER = TEST_RUNTIME.user;

export function runtimeFor(link: HostLink): RuntimeSettings {
  return {
    root: ROOT,
    systemdUnitDirectory: UNIT_DIR,
    nodePath: link.host.nodePath,
    openclawPath: link.host.fixtureGatewayPath,
    user: RUNTIME_USER,
    gatewayPortRange: { start: 18800, end: 18899 },
  };
}

let counter = 0;
export function envelopeFor<O extends OperationName>(link: HostLink, operation: O, args: OperationArgs<O>): Envelope {
  const runtime = runtimeFor(link);
  return makeEnvelope({ operation, args, runtime, configurationHash: canonicalHash(runtime), requestId: `chaos-${process.pid}-${++counter}` }) as Envelope;
}

export interface CallOutcome {
  line: ResultLine | undefined;
  killed: boolean;
  ms: number;
  code: number | null;
  /** Heartbeat lines that arrived: one per change the helper began, plus one a second while it waits. */
  progressLines: number;
  killedAtMs?: number;
  /** The envelope's requestId (calls built here; raw calls have none). */
  requestId?: string;
}

export interface CallOptions {
  killAfterMs?: number;
  killAfterLines?: number;
  /** Over the multiplexed connection instead of a fresh client (same helper, same argument). */
  mux?: boolean;
  onSpawn?: (pid: number) => void;
  /** Runs the remote node under this program (e.g. strace and its options); a fresh client only. */
  wrap?: readonly string[];
  timeoutMs?: number;
}

/**
 * The wire form of an encoded operation (any text, for corrupted cases): sealed by the
 * controller's own sealOperation where it accepts the text, else by the same format by hand, so
 * that the helper's decoder, not the sealing, is what judges it.
 */
export function wireFor(text: string | SealedOperation): SealedOperation {
  if (typeof text !== 'string') return text;
  try {
    return sealOperation(text);
  } catch {
    const header = { protocolVersion: PROTOCOL_VERSION, sealed: { sha256: sha256Hex(text), bytes: text.length } };
    return { argument: Buffer.from(JSON.stringify(header)).toString('base64'), prelude: `globalThis[Symbol.for(${JSON.stringify(SEALED_KEY)})]=${JSON.stringify(text)};\n` };
  }
}

/** Sends the helper an encoded operation (validated or not), or an exact wire form. */
export async function callRaw(link: HostLink, operation: string | SealedOperation, options: CallOptions = {}): Promise<CallOutcome> {
  const wire = wireFor(operation);
  const node = wire.argument === '' ? `${link.nodePath} -` : `${link.nodePath} - ${wire.argument}`;
  const command = options.wrap ? `${remoteCommand([...options.wrap, '--'])} ${node}` : node;
  const input = helperInput(helperArtifact(), wire);
  const result = options.mux
    ? await link.muxCommand(command, { input })
    : await link.fresh(command, {
        input,
        ...(options.killAfterMs === undefined ? {} : { killAfterMs: options.killAfterMs }),
        ...(options.killAfterLines === undefined ? {} : { killAfterLines: options.killAfterLines }),
        ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
  const progressLines = result.stdout.split('\n').filter((line) => line.startsWith('{"type":"heartbeat"')).length;
  return { line: findResultLine(result.stdout), killed: result.killed, ms: result.ms, code: result.code, progressLines, ...(result.killedAtMs === undefined ? {} : { killedAtMs: result.killedAtMs }) };
}

export async function call<O extends OperationName>(link: HostLink, operation: O, args: OperationArgs<O>, options: CallOptions = {}): Promise<CallOutcome> {
  const envelope = envelopeFor(link, operation, args);
  return { ...(await callRaw(link, encodeArgument(envelope), options)), requestId: envelope.requestId };
}

/** The helper's own journal line for a request: how it ended and how many changes it began. */
export async function auditOf(link: HostLink, requestId: string): Promise<{ outcome: string; changes: number } | undefined> {
  const journal = await link.run(['journalctl', '--no-pager', '-o', 'cat', '-n', '300', '-t', 'occ-ssh-helper']);
  const line = journal.split('\n').find((entry) => entry.includes(` request=${requestId} `));
  const outcome = line && /(?:^| )outcome=(\S+)/.exec(line)?.[1];
  const changes = line && /(?:^| )changes=(\d+)/.exec(line)?.[1];
  return outcome && changes ? { outcome, changes: Number(changes) } : undefined;
}

export class HelperCallError extends Error {
  constructor(readonly operation: string, readonly code: string | undefined, message: string) {
    super(`${operation}: ${message}`);
    this.name = 'HelperCallError';
  }
}

/** A call that must succeed; its result is returned. */
export async function ok<O extends OperationName>(link: HostLink, operation: O, args: OperationArgs<O>, options: CallOptions = {}): Promise<OperationResult<O>> {
  const outcome = await call(link, operation, args, options);
  if (!outcome.line) throw new HelperCallError(operation, undefined, `no result line (ssh exit ${String(outcome.code)})`);
  if (!outcome.line.ok) throw new HelperCallError(operation, outcome.line.error.code, `${outcome.line.error.code}: ${outcome.line.error.message}`);
  return outcome.line.result as OperationResult<O>;
}

/** A distinct Namespace/Agent/ServicePrincipal triple per tag. */
export function ownerOf(tag: string, agentTag = tag, namespaceName = 'stable'): AgentOwner {
  return { namespace: { id: `ns-${tag}`, name: namespaceName }, agent: { id: `agent-${agentTag}` }, servicePrincipal: { id: `sp-${agentTag}` } };
}

export interface FixtureBehaviour {
  readyAfterMs?: number;
  neverReady?: boolean;
  exitAtStart?: boolean;
  crashAfterReadyMs?: number;
  ignoreSigterm?: boolean;
}

/** A rendered password-mode document as the driver would render it, with the fixture's behaviour block. */
export function documentOf(fixture: FixtureBehaviour = {}, extra: Record<string, unknown> = {}): OperationArgs<'prepare-revision'>['configuration'] {
  const body = {
    fixtureGateway: fixture,
    gateway: { auth: { mode: 'password', password: { id: 'OPENCLAW_GATEWAY_PASSWORD', provider: 'default', source: 'env' } }, bind: 'loopback', mode: 'local' },
    ...extra,
  };
  const text = `${JSON.stringify(body, null, 2)}\n`;
  return { document: text, hash: sha256Hex(text), auth: 'password' };
}

export function prepareArgs(owner: AgentOwner, number: number, fixture: FixtureBehaviour = {}): OperationArgs<'prepare-revision'> {
  return { owner, revision: { id: `rev-${owner.agent.id}-${number}`, number }, harness: 'openclaw/embedded', configuration: documentOf(fixture) };
}

export function activateArgs(prepared: OperationArgs<'prepare-revision'>, readinessTimeoutMs = 30_000, launchEnvironment: Record<string, string> = {}): OperationArgs<'activate-revision'> {
  return { owner: prepared.owner, revision: prepared.revision, configurationHash: prepared.configuration.hash, launchEnvironment, readinessTimeoutMs };
}

export function targetArgs(prepared: OperationArgs<'prepare-revision'>): OperationArgs<'stop-revision'> {
  return { owner: prepared.owner, revision: prepared.revision };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
