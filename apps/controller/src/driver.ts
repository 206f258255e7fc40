// SshComputeDriver: OCC's ComputeDriver for operator Linux hosts, reached over SSH.
import { ComputeError, DRIVER_ID, DRIVER_IMPLEMENTATION, MAX_READINESS_TIMEOUT_MS, toComputeError, type OperationArgs, type OperationName, type OperationResult } from '@occ-ssh/protocol';
import { admitRevision, validateHarnessAuth } from './admission/harness.js';
import { sshGatewayConfigurationDocument } from './admission/document.js';
import { Bindings } from './bindings.js';
import { hostFor, runtimeSettingsFor, type SshComputeConfiguration } from './config/index.js';
import { loadHelperArtifact, type HelperArtifact } from './helper-artifact.js';
import { HookRegistry } from './hooks/registry.js';
import { compensate, runNamespaceHooks, runStartHooks, runStopHooks } from './hooks/run.js';
import { HostLimiter } from './limiter.js';
import { createLogger, type Logger } from './logging.js';
import { combineHostFailures } from './host-failures.js';
import { checkLocalSshFiles, missingOnHost } from './preflight.js';
import type { CommandExecutor, HostTarget } from './transport/executor.js';
import { OPERATION_TIMEOUT_MS, runOperation, type OperationOutcome } from './transport/run-operation.js';
import { createExecutor } from './transport/select.js';
import type {
  AgentBinding,
  AgentRevision,
  GatewayEndpoint,
  HarnessAuth,
  LifecycleDriver,
  NamespaceDeletedResult,
  NamespaceReadyResult,
  NamespaceResource,
  OperationContext,
  PrepareResult,
} from './types.js';
import { DRIVER_VERSION } from './version.js';

export interface SshComputeDriverOptions {
  /** A configuration from `loadInstallationConfiguration`. */
  configuration: SshComputeConfiguration;
  /** Defaults to the transport the configuration selects. */
  executor?: CommandExecutor;
  logger?: Logger;
  /** Driver IDs the Installation selects for Configuration and IAM; hook owners must be among them (none by default). */
  selectedLifecycleDrivers?: readonly string[];
  /** Readiness bound per activation, at most (and by default) 120 seconds. */
  readinessTimeoutMs?: number;
  operationTimeoutMs?: number;
  /** Told of each helper heartbeat (about one a second while a host works), for operator progress. */
  onHelperProgress?: (progress: HelperProgress) => void;
}

export interface HelperProgress {
  host: string;
  operation: OperationName;
  /** Heartbeats seen so far in this invocation. */
  heartbeats: number;
  elapsedMs: number;
}

export class SshComputeDriver {
  readonly id = DRIVER_ID;
  readonly implementation = DRIVER_IMPLEMENTATION;
  readonly capability = 'compute' as const;
  readonly activationOrder = 'afterCommit' as const;

  private readonly config: SshComputeConfiguration;
  private readonly executor: CommandExecutor;
  private readonly logger: Logger;
  private readonly helper: HelperArtifact;
  private readonly bindings = new Bindings();
  private readonly hooks: HookRegistry;
  private readonly limiter: HostLimiter;
  private readonly readinessTimeoutMs: number;
  private readonly operationTimeoutMs: number;
  private readonly onHelperProgress: ((progress: HelperProgress) => void) | undefined;

  constructor(options: SshComputeDriverOptions) {
    this.onHelperProgress = options.onHelperProgress;
    this.config = options.configuration;
    this.logger = options.logger ?? createLogger();
    this.executor = options.executor ?? createExecutor(this.config);
    this.helper = loadHelperArtifact();
    this.hooks = new HookRegistry(new Set(options.selectedLifecycleDrivers ?? []));
    this.limiter = new HostLimiter(this.config.maxConcurrentOperationsPerHost);
    this.readinessTimeoutMs = Math.min(options.readinessTimeoutMs ?? MAX_READINESS_TIMEOUT_MS, MAX_READINESS_TIMEOUT_MS);
    this.operationTimeoutMs = options.operationTimeoutMs ?? OPERATION_TIMEOUT_MS;
    this.logger.info({ helperSha256: this.helper.sha256, helperBytes: this.helper.bytes.length, version: DRIVER_VERSION }, 'host helper loaded');
  }

  /** Registers Configuration/IAM hook owners; refused once a lifecycle operation has begun. */
  setLifecycleDrivers(drivers: readonly LifecycleDriver[]): void {
    this.hooks.set(drivers);
  }

  /** Checks the local SSH files, then probes every configured host; throws naming the first host that fails. */
  async preflight(context: OperationContext = {}): Promise<void> {
    this.hooks.fix();
    checkLocalSshFiles(this.config);
    const names = Object.keys(this.config.hosts);
    const outcomes = await Promise.allSettled(
      names.map(async (name) => {
        const { result } = await this.send(name, 'probe', {}, context.signal, {});
        const missing = missingOnHost(name, this.config.hosts[name]!.address, result);
        if (missing) throw missing;
      }),
    );
    // Every host is probed, and every failing host is named with its cause.
    const failures = new Map<string, ComputeError>();
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected') failures.set(names[index]!, toComputeError(outcome.reason, { host: names[index]! }));
    });
    const failure = combineHostFailures(failures);
    if (failure) throw failure;
  }

  /** Creates or verifies the Namespace marker, then runs afterNamespacePrepared hooks. */
  async ensureNamespace(namespace: NamespaceResource, context: OperationContext = {}): Promise<NamespaceReadyResult> {
    try {
      return await this.ensureNamespaceOrThrow(namespace, context);
    } catch (error) {
      return { namespaceId: namespace.id, namespaceReady: false, failure: toComputeError(error).failure };
    }
  }

  /** ensureNamespace for operator tools: the failure is thrown with its cause instead of folded into the result. */
  async ensureNamespaceOrThrow(namespace: NamespaceResource, context: OperationContext = {}): Promise<NamespaceReadyResult> {
    const owners = this.hooks.fix();
    await this.send(namespace.name, 'ensure-namespace', { namespace: { id: namespace.id, name: namespace.name } }, context.signal, { namespace: namespace.id });
    await runNamespaceHooks(owners, 'afterNamespacePrepared', namespace, context.signal);
    return { namespaceId: namespace.id, namespaceReady: true };
  }

  /** Copies the authoritative Namespace, Agent and ServicePrincipal; revision operations require it. */
  bindAgent(binding: AgentBinding): void {
    this.bindings.bind(binding);
  }

  /** Accepts only openclaw/embedded with `{ "method": "runtime" }`. */
  validateHarnessAuth(harness: string, auth: HarnessAuth, _configuration?: unknown): void {
    validateHarnessAuth(harness, auth);
  }

  /** Stages the account, port and immutable snapshot; never touches the unit or `current`. */
  async prepareRevision(revision: AgentRevision, context: OperationContext = {}): Promise<PrepareResult> {
    this.hooks.fix();
    const bound = this.admit(revision);
    const rendered = sshGatewayConfigurationDocument(revision.configuration);
    const { result } = await this.send(
      bound.namespace.name,
      'prepare-revision',
      { owner: bound.owner, revision: { id: revision.id, number: revision.number }, harness: 'openclaw/embedded', configuration: { document: rendered.text, hash: rendered.hash, auth: rendered.auth } },
      context.signal,
      this.fields(revision),
    );
    return { namespaceId: revision.namespaceId, agentId: revision.agentId, revisionId: revision.id, ready: result.ready };
  }

  /** After OCC commits: start hooks, then render the unit, switch `current`, restart and wait for readiness. */
  async activateRevision(revision: AgentRevision, context: OperationContext = {}): Promise<void> {
    const owners = this.hooks.fix();
    const bound = this.admit(revision);
    const rendered = sshGatewayConfigurationDocument(revision.configuration);
    const started = await runStartHooks(owners, revision, context.signal);
    try {
      await this.send(
        bound.namespace.name,
        'activate-revision',
        { owner: bound.owner, revision: { id: revision.id, number: revision.number }, configurationHash: rendered.hash, launchEnvironment: started.environment, readinessTimeoutMs: this.readinessTimeoutMs },
        context.signal,
        this.fields(revision),
      );
    } catch (error) {
      await compensate(started.started, revision);
      throw toComputeError(error);
    }
  }

  /** Verifies ownership only: SSH has no dedicated topology to deactivate. */
  async deactivateRevision(revision: AgentRevision, context: OperationContext = {}): Promise<void> {
    this.hooks.fix();
    const bound = this.bindings.require(revision);
    await this.send(bound.namespace.name, 'verify-revision', { owner: bound.owner, revision: { id: revision.id, number: revision.number } }, context.signal, this.fields(revision));
  }

  /** Stop hooks, then stop and disable the unit and remove `current` and served.json; the snapshot stays. */
  async stopRevision(revision: AgentRevision, context: OperationContext = {}): Promise<void> {
    const owners = this.hooks.fix();
    const bound = this.bindings.require(revision);
    await runStopHooks(owners, revision, context.signal);
    await this.send(bound.namespace.name, 'stop-revision', { owner: bound.owner, revision: { id: revision.id, number: revision.number } }, context.signal, this.fields(revision));
  }

  /** Stop hooks, then remove only this snapshot (stopping the gateway first if it is current). */
  async retireRevision(revision: AgentRevision, context: OperationContext = {}): Promise<void> {
    const owners = this.hooks.fix();
    const bound = this.bindings.require(revision);
    await runStopHooks(owners, revision, context.signal);
    await this.send(bound.namespace.name, 'retire-revision', { owner: bound.owner, revision: { id: revision.id, number: revision.number } }, context.signal, this.fields(revision));
  }

  /** beforeNamespaceDelete hooks, then the host deletion; bindings are cleared only after it succeeds. */
  async deleteNamespace(namespace: NamespaceResource, context: OperationContext = {}): Promise<NamespaceDeletedResult> {
    try {
      return await this.deleteNamespaceOrThrow(namespace, context);
    } catch (error) {
      return { namespaceId: namespace.id, namespaceDeleted: false, failure: toComputeError(error).failure };
    }
  }

  /** deleteNamespace for operator tools: the failure is thrown with its cause instead of folded into the result. */
  async deleteNamespaceOrThrow(namespace: NamespaceResource, context: OperationContext = {}): Promise<NamespaceDeletedResult> {
    const owners = this.hooks.fix();
    hostFor(this.config, namespace.name);
    await runNamespaceHooks(owners, 'beforeNamespaceDelete', namespace, context.signal);
    await this.send(namespace.name, 'delete-namespace', { namespace: { id: namespace.id, name: namespace.name } }, context.signal, { namespace: namespace.id });
    this.bindings.clearNamespace(namespace.id);
    return { namespaceId: namespace.id, namespaceDeleted: true };
  }

  /** Where the Agent's gateway listens: loopback on its configured host. */
  async getGatewayEndpoint(revision: AgentRevision, context: OperationContext = {}): Promise<GatewayEndpoint> {
    this.hooks.fix();
    const bound = this.bindings.require(revision);
    const { result } = await this.send(bound.namespace.name, 'verify-revision', { owner: bound.owner, revision: { id: revision.id, number: revision.number } }, context.signal, this.fields(revision));
    if (result.port === undefined) throw new ComputeError('ownership', `Agent ${revision.agentId} has no gateway on its host yet`);
    const host = hostFor(this.config, bound.namespace.name);
    return { host: host.address, port: result.port, url: `http://127.0.0.1:${result.port}` };
  }

  /** Releases transport resources (pooled connections). */
  async close(): Promise<void> {
    await this.executor.close?.();
  }

  private admit(revision: AgentRevision) {
    const bound = this.bindings.require(revision);
    admitRevision(revision, bound.agent);
    return bound;
  }

  private fields(revision: AgentRevision) {
    return { namespace: revision.namespaceId, agent: revision.agentId, revision: revision.id };
  }


  /** Read-only view of every Namespace and Agent on the host that serves `namespaceName` (operator status). */
  async inventory(namespaceName: string, context: OperationContext = {}): Promise<OperationResult<'inventory'>> {
    return (await this.send(namespaceName, 'inventory', {}, context.signal, {})).result;
  }

  /** One helper invocation on the Namespace's host, bounded per host and logged without secrets. */
  private async send<O extends OperationName>(
    namespaceName: string,
    operation: O,
    args: OperationArgs<O>,
    signal: AbortSignal | undefined,
    fields: Record<string, string>,
  ): Promise<OperationOutcome<O>> {
    const resolved = hostFor(this.config, namespaceName);
    const host: HostTarget = { name: resolved.name, address: resolved.address, port: resolved.port, user: resolved.user };
    const log = this.logger.child({ host: host.name, operation, ...fields });
    const started = Date.now();
    try {
      // Keyed by the connection, not the Namespace: several Namespaces may share one host.
      const progress = this.onHelperProgress;
      const onHeartbeat = progress && ((seq: number) => progress({ host: host.name, operation, heartbeats: seq + 1, elapsedMs: Date.now() - started }));
      const outcome = await this.limiter.run(`${host.user}@${host.address}:${host.port}`, () =>
        runOperation(this.executor, this.helper, DRIVER_VERSION, { operation, args, host, runtime: runtimeSettingsFor(this.config, namespaceName), ...(signal ? { signal } : {}), ...(onHeartbeat ? { onHeartbeat } : {}) }, this.operationTimeoutMs),
      );
      log.info({ durationMs: Date.now() - started, timings: outcome.timings, requestId: outcome.requestId }, 'operation succeeded');
      return outcome;
    } catch (error) {
      const failure = toComputeError(error, { host: host.name, operation });
      log.warn({ durationMs: Date.now() - started, code: failure.code, failure: failure.failure, reason: failure.message }, 'operation failed');
      throw failure;
    }
  }
}

export type { OperationResult };
