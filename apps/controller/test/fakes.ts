// Shared test doubles: a scripted CommandExecutor, helper result lines and recording hook owners.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  ComputeError,
  OPERATION_NAMES,
  PROTOCOL_VERSION,
  exampleResult,
  formatLine,
  type Envelope,
  type ErrorCode,
  type OperationName,
  type OperationResult,
  type ResultLine,
  type RuntimeSettings,
} from '@occ-ssh/protocol';
import { openSealed, splitHelperInput, type HelperArtifact } from '@occ-ssh/helper-call';
import pino from 'pino';
import type { CommandExecutor, ExecuteRequest, ExecuteResult, HostTarget } from '../src/transport/executor.js';
import { loadInstallationConfiguration } from '../src/config/load.js';
import { createDefaultDeps } from '../src/deps.js';
import type { HelperProgress } from '../src/public-types.js';
import { OperationRunner } from '../src/run-operation.js';
import type { HelperTracer } from '../src/telemetry.js';
import { SEED_INSTALLATION } from './config-fixtures.js';
import { remoteCommand } from '@occ-ssh/ssh-client';
import { DRIVER_ID, DRIVER_IMPLEMENTATION } from '@occ-ssh/protocol';
import type { Agent, AgentRevision, ComputeLifecycleHooks, LifecycleDriver, Namespace } from '../src/types.js';
import { DRIVER_VERSION } from '../src/version.js';

/** A stand-in for the built helper: run-operation only forwards its bytes. */
export const FAKE_HELPER: HelperArtifact = Object.freeze({
  bytes: Buffer.from('x'),
  sha256: createHash('sha256').update('x').digest('hex'),
  path: '/x',
});

export const HOST: HostTarget = Object.freeze({ name: 'stable', address: '203.0.113.10', port: 22, user: 'root' });

/** The runtime settings the seed Installation resolves for Namespace "stable". */
export const RUNTIME: RuntimeSettings = Object.freeze({
  root: '/var/lib/openclaw-enterprise',
  systemdUnitDirectory: '/etc/systemd/system',
  nodePath: '/usr/bin/node',
  openclawPath: '/opt/openclaw/current/dist/index.js',
  user: 'openclaw',
  gatewayPortRange: Object.freeze({ start: 18800, end: 18899 }),
});

/**
 * The one invocation module over the seed Installation (Namespace "stable" is HOST, with RUNTIME), a
 * scripted executor and a silent logger.
 */
export function fakeRunner(executor: CommandExecutor, options: { timeoutMs?: number; progress?: (progress: HelperProgress) => void; trace?: HelperTracer } = {}): OperationRunner {
  const configuration = loadInstallationConfiguration({ text: SEED_INSTALLATION });
  const observer = { ...(options.progress ? { progress: options.progress } : {}), ...(options.trace ? { trace: options.trace } : {}) };
  const deps = createDefaultDeps(configuration, { executor, helper: FAKE_HELPER, logger: pino({ level: 'silent' }), observer });
  return new OperationRunner(configuration, deps, options.timeoutMs);
}

/** A well-formed result for each lifecycle operation, as the helper would report it (others answer `{}`). */
/** What each operation answers when a test does not say: the protocol table's own example. */
export const SAMPLE_RESULTS: { readonly [O in OperationName]: OperationResult<O> } = Object.fromEntries(OPERATION_NAMES.map((operation) => [operation, exampleResult(operation)])) as {
  [O in OperationName]: OperationResult<O>;
};

/**
 * The envelope sealed in the helper input and named by `<nodePath> - <base64 header>`; throws if
 * the command or the input has another shape, or the header does not match the sealed text.
 */
export function decodeRemoteCommand(remoteCommand: string, stdin: Uint8Array): { nodePath: string; argument: string; sealed: string; helper: Buffer; envelope: Envelope } {
  const parts = remoteCommand.split(' ');
  if (parts.length !== 3 || parts[1] !== '-') throw new Error(`unexpected remote command shape: ${remoteCommand.slice(0, 80)}`);
  const [nodePath, , argument] = parts as [string, string, string];
  const input = splitHelperInput(stdin);
  if (!input) throw new Error('the helper input does not start with the sealed operation');
  const sealed = openSealed(argument, input.sealed);
  const envelope = JSON.parse(Buffer.from(sealed, 'base64').toString('utf8')) as Envelope;
  return { nodePath, argument, sealed, helper: input.helper, envelope };
}

export function heartbeat(seq: number): string {
  return formatLine({ type: 'heartbeat', seq });
}

type LineOverrides = Partial<Pick<ResultLine, 'protocolVersion' | 'helperVersion' | 'operation' | 'requestId'>>;

/** What every result line answering `envelope` starts with. */
function lineHead(envelope: Pick<Envelope, 'operation' | 'requestId'>) {
  return { type: 'result' as const, protocolVersion: PROTOCOL_VERSION, helperVersion: DRIVER_VERSION, operation: envelope.operation, requestId: envelope.requestId };
}

/** A successful result line answering `envelope`. */
export function okLine(envelope: Pick<Envelope, 'operation' | 'requestId'>, result: unknown = SAMPLE_RESULTS[envelope.operation] ?? {}, overrides: LineOverrides = {}): string {
  return formatLine({
    ...lineHead(envelope),
    timings: { totalMs: 7, lockWaitMs: 1, lockHoldMs: 5 },
    ok: true,
    result,
    ...overrides,
  } as ResultLine);
}

/** A helper failure line answering `envelope`. */
export function failureLine(envelope: Pick<Envelope, 'operation' | 'requestId'>, code: ErrorCode, message: string, path?: string): string {
  return formatLine({
    ...lineHead(envelope),
    timings: { totalMs: 3 },
    ok: false,
    error: { code, message, ...(path ? { path } : {}) },
  });
}

export interface ExecutedCall {
  request: ExecuteRequest;
  /** The remote command line sshd would receive. */
  command: string;
  nodePath: string;
  argument: string;
  /** The encoded operation the input carried ahead of the helper. */
  sealed: string;
  helper: Buffer;
  envelope: Envelope;
}

/** What a scripted answer may set; anything left out takes a clean exit-0 value. */
export type FakeAnswer = Partial<ExecuteResult>;
export type Responder = (envelope: Envelope, request: ExecuteRequest) => FakeAnswer | Promise<FakeAnswer>;

/** Answers every operation with its sample result, as a current helper would. */
export const answerOk: Responder = (envelope) => ({ stdout: `${heartbeat(0)}${okLine(envelope)}` });

/**
 * A CommandExecutor that runs nothing: it records each request, decodes its envelope and answers
 * through a responder. `events`, when given, receives `exec:<operation>` as each call arrives.
 */
export class FakeExecutor implements CommandExecutor {
  readonly calls: ExecutedCall[] = [];
  closed = 0;

  constructor(
    public responder: Responder = answerOk,
    private readonly events?: string[],
  ) {}

  get operations(): string[] {
    return this.calls.map((call) => call.envelope.operation);
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const command = remoteCommand(request.call.argv);
    const decoded = decodeRemoteCommand(command, request.call.stdin);
    this.calls.push({ request, command, ...decoded });
    this.events?.push(`exec:${decoded.envelope.operation}`);
    const answer = await this.responder(decoded.envelope, request);
    return {
      exitCode: 0,
      signal: null,
      stdout: '',
      stderrBytes: 0,
      stdoutTruncated: false,
      timedOut: false,
      aborted: false,
      transportFailed: false,
      ...answer,
    };
  }

  async close(): Promise<void> {
    this.closed += 1;
  }
}

export interface RecordingOwnerOptions {
  capability?: LifecycleDriver['capability'];
  /** Environment this owner's beforeWorkloadStart adds. */
  environment?: Record<string, string>;
  /** Phases whose hook throws (after recording the call). */
  fail?: readonly (keyof ComputeLifecycleHooks)[];
  /** What the failing hook throws; defaults to an Error carrying a credential-like string. */
  error?: unknown;
  /** Phases this owner has no hook for. */
  omit?: readonly (keyof ComputeLifecycleHooks)[];
}

/** A Configuration or IAM driver in OCC's Driver shape with the given hooks. */
export function hookOwner(id: string, capability: LifecycleDriver['capability'], hooks: ComputeLifecycleHooks): LifecycleDriver {
  return { id, capability, implementation: `test/${id}`, computeLifecycleHooks: hooks };
}

/** A Configuration/IAM driver (OCC's Driver shape) whose hooks record `<phase>:<id>` into `log` in call order. */
export function recordingOwner(id: string, log: string[], options: RecordingOwnerOptions = {}): LifecycleDriver {
  const fails = (phase: keyof ComputeLifecycleHooks) => {
    if (options.fail?.includes(phase)) throw options.error ?? new Error(`${id} failed with sk-secret-123`);
  };
  const lifecycle: ComputeLifecycleHooks = {
    async afterNamespacePrepared() {
      log.push(`afterNamespacePrepared:${id}`);
      fails('afterNamespacePrepared');
    },
    async beforeWorkloadStart(_revision, launch) {
      log.push(`beforeWorkloadStart:${id}`);
      fails('beforeWorkloadStart');
      Object.assign(launch.environment, options.environment ?? {});
    },
    async beforeWorkloadStop() {
      log.push(`beforeWorkloadStop:${id}`);
      fails('beforeWorkloadStop');
    },
    async beforeNamespaceDelete() {
      log.push(`beforeNamespaceDelete:${id}`);
      fails('beforeNamespaceDelete');
    },
  };
  for (const phase of options.omit ?? []) delete lifecycle[phase];
  return hookOwner(id, options.capability ?? 'configuration', lifecycle);
}

export const NAMESPACE: Namespace = Object.freeze({ id: 'ns-1', name: 'stable', status: 'ready', createdAt: '2026-01-01T00:00:00.000Z' });

/** An Agent in OCC's own shape. */
export function agentFor(overrides: Partial<Agent> = {}): Agent {
  return {
    id: 'agent-1',
    namespaceId: NAMESPACE.id,
    name: 'agent-one',
    servicePrincipalId: 'sp-1',
    configurationId: 'cfg-1',
    desiredRuntimeState: 'running',
    status: 'active',
    backendId: null,
    harnessAuth: { method: 'runtime' },
    executionMode: 'embedded',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function revisionFor(overrides: Partial<AgentRevision> = {}): AgentRevision {
  return {
    id: 'rev-1',
    namespaceId: NAMESPACE.id,
    agentId: 'agent-1',
    revision: 1,
    servicePrincipalId: 'sp-1',
    backendId: null,
    configurationId: 'cfg-1',
    configurationKind: 'agent',
    configurationGeneration: 1,
    configuration: { agents: { defaults: { model: 'anthropic/claude-test' } } },
    harness: { id: 'openclaw', version: '2026.1.0', mode: 'embedded' },
    compute: { id: DRIVER_ID, implementation: DRIVER_IMPLEMENTATION },
    harnessAuth: { method: 'runtime' },
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** An in-memory destination for a pino logger; `text` is everything written so far. */
export class MemoryStream extends Writable {
  private readonly chunks: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk.toString());
    callback();
  }

  get text(): string {
    return this.chunks.join('');
  }

  get lines(): Record<string, unknown>[] {
    return this.text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

/** A promise with its resolve/reject exposed, for stepping concurrent work by hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (reason: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks and immediates run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The ComputeError a promise rejects with; fails the test when it resolves or throws anything else. */
export async function rejection(promise: Promise<unknown>): Promise<ComputeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}
