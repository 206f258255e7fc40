// SshComputeDriver: OCC's ComputeDriver for operator Linux hosts, reached over SSH.
import { randomBytes } from 'node:crypto';
import {
  ComputeError,
  DRIVER_ID,
  DRIVER_IMPLEMENTATION,
  MAX_FOLLOW_SECONDS,
  MAX_READINESS_TIMEOUT_MS,
  activateArgs,
  deleteAgentArgs,
  namespaceArgs,
  ownerOf,
  prepareArgs,
  readLogsArgs,
  revisionArgs,
  setupArgs,
  toComputeError,
  type OperationArgs,
  type OperationName,
  type PlannedOperation,
  type ResourceIds,
} from '@occ-ssh/protocol';
import { admitContext, admitRevision, checkRevisionIdentity, validateHarnessAuth } from './admission/harness.js';
import { sshGatewayConfigurationDocument } from './admission/document.js';
import { admitWorkspaceSetup } from './admission/workspace-setup.js';
import { Bindings, refuseExistingNamespace, type BoundRevision } from './bindings.js';
import { hostFor } from './config/hosts.js';
import type { SshComputeConfiguration } from './config/schema.js';
import { createDefaultDeps, type HelperArtifact } from './deps.js';
import { describePrepareRevisionFailure, type PrepareFailureDiagnostic } from './diagnostics.js';
import { diagnoseDeployment } from './deployment-diagnostics.js';
import { HookRegistry } from './hooks/registry.js';
import { compensate, runNamespaceHooks, runStartHooks, runStopHooks } from './hooks/run.js';
import type { Logger } from './logging.js';
import { combineHostFailures } from './host-failures.js';
import { namespaceFailureReason } from './namespace-reason.js';
import type {
  AgentDeletionReport,
  AgentDeploymentDiagnostics,
  HelperProgress,
  HostInventory,
  LogEntry,
  LogFollowEnd,
  LogFollowOptions,
  LogPage,
  LogQuery,
  OperationPlan,
  StopReport,
} from './public-types.js';
import { LogStreams } from './log-stream.js';
import { OperationRunner, type OperationOutcome } from './run-operation.js';
import { admitLogRequest, toDescription, toLogChunk } from './runtime-view.js';
import type { AgentRuntimeDescribeOptions, AgentRuntimeDescription, AgentRuntimeLogChunk, AgentRuntimeLogRequest } from './runtime-types.js';
import { traceMethods, type TracedMethods } from './telemetry.js';
import { capacityWarnings, checkLocalSshFiles, linkLocalWarning, missingOnHost, socketBindWarning } from './preflight.js';
import type { CommandExecutor } from './transport/executor.js';
import type {
  AgentRevision,
  ComputeAgentBinding,
  ComputeAgentRevisionBinding,
  ComputeReadiness,
  ComputeRevisionContext,
  Driver,
  GatewayAddress,
  Namespace,
  NamespaceDeleteResult,
  NamespaceEnsureResult,
} from './types.js';
import type { ComputePreflightResult } from './types.js';
import { DRIVER_VERSION } from './version.js';

export interface SshComputeDriverOptions {
  /** A configuration from `validateConfiguration`/`loadInstallationConfiguration`. */
  configuration: SshComputeConfiguration;
  /** OCC's selection id; `compute-ssh` by default. */
  id?: string;
  /** OCC's implementation string (`<package>@<version>` for a package); `occ/ssh` by default. */
  implementation?: string;
  /** The abort signal of the OCC operation in progress, asked once per call. */
  getOperationAbortSignal?: () => AbortSignal | undefined;
  /** Defaults to the transport the configuration selects. */
  executor?: CommandExecutor;
  logger?: Logger;
  /** Defaults to the host-helper.cjs shipped beside the module (or the workspace build). */
  helper?: HelperArtifact;
  /** Readiness bound per activation, at most (and by default) 120 seconds. */
  readinessTimeoutMs?: number;
  /** The transport bound of one helper operation, 180 seconds by default (the helper stops itself at 170 s). */
  operationTimeoutMs?: number;
  /** Told of each helper heartbeat (one per change the helper begins, one a second while it waits), for operator progress. */
  onHelperProgress?: (progress: HelperProgress) => void;
}

export class SshComputeDriver {
  readonly id: string;
  readonly implementation: string;
  readonly capability = 'compute' as const;
  readonly activationOrder = 'afterCommit' as const;
  /**
   * OCC does not validate unbound channel SecretRefs: they resolve from the operator's env file on
   * the host. Bound OCC Secrets are still refused (validateHarnessAuth, admitContext).
   */
  readonly operatorProvisionedSecrets = true as const;
  /** OCC hands over the Agent's first workspace documents (context.workspaceSetup); see setup-workspace. */
  readonly supportsWorkspaceSetup = true as const;
  /** OCC's own logging policy applies; its runtime routes read the gateway's journal through this driver (docs/integration.md). */
  readonly runtimeLogging = 'platform' as const;

  private readonly config: SshComputeConfiguration;
  private readonly runner: OperationRunner;
  private readonly streams: LogStreams;
  private readonly bindings = new Bindings();
  private readonly hooks = new HookRegistry();
  private readonly readinessTimeoutMs: number;
  private readonly operationSignal: () => AbortSignal | undefined;

  constructor(options: SshComputeDriverOptions) {
    this.id = options.id ?? DRIVER_ID;
    this.implementation = options.implementation ?? DRIVER_IMPLEMENTATION;
    this.config = options.configuration;
    const deps = createDefaultDeps(this.config, {
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.executor ? { executor: options.executor } : {}),
      ...(options.helper ? { helper: options.helper } : {}),
      ...(options.onHelperProgress ? { observer: { progress: options.onHelperProgress } } : {}),
    });
    this.streams = new LogStreams(deps.executor);
    this.runner = new OperationRunner(this.config, { ...deps, executor: this.streams }, options.operationTimeoutMs);
    this.readinessTimeoutMs = Math.min(options.readinessTimeoutMs ?? MAX_READINESS_TIMEOUT_MS, MAX_READINESS_TIMEOUT_MS);
    this.operationSignal = options.getOperationAbortSignal ?? (() => undefined);
    // A library stays quiet: construction writes nothing at the levels an application runs at.
    deps.logger.debug({ helperSha256: deps.helper.sha256, helperBytes: deps.helper.bytes.length, version: DRIVER_VERSION }, 'host helper loaded');
    traceMethods(this, TRACED);
  }

  /** Takes the Configuration and IAM drivers whose computeLifecycleHooks run around SSH steps; refused once a lifecycle operation has begun. */
  setLifecycleDrivers(drivers: readonly Driver[]): void {
    this.hooks.set(drivers);
  }

  /**
   * Checks the local SSH files, then probes every configured host; throws naming every host that
   * fails. A host that passes but cannot enforce SocketBind*, or is low on capacity, adds a warning, never a failure.
   */
  async preflight(): Promise<ComputePreflightResult> {
    this.hooks.ownersForOperation();
    checkLocalSshFiles(this.config);
    const names = Object.keys(this.config.hosts);
    const signal = this.operationSignal();
    const outcomes = await Promise.allSettled(
      names.map(async (name) => {
        const { result } = await this.send(name, 'probe', {}, signal);
        const missing = missingOnHost(name, this.config.hosts[name]!.address, result);
        if (missing) throw missing;
        const address = this.config.hosts[name]!.address;
        const socketBind = socketBindWarning(name, address, result);
        const linkLocal = linkLocalWarning(name, address, result, this.config.network.allowLinkLocal === true);
        return [...(socketBind ? [socketBind] : []), ...(linkLocal ? [linkLocal] : []), ...capacityWarnings(name, address, result)];
      }),
    );
    // Every host is probed, and every failing host is named with its cause.
    const failures = new Map<string, ComputeError>();
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected') failures.set(names[index]!, toComputeError(outcome.reason, { host: names[index]! }));
    });
    const failure = combineHostFailures(failures);
    if (failure) throw failure;
    return { warnings: outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : [])) };
  }

  /** Creates or verifies the Namespace marker, then runs afterNamespacePrepared hooks. */
  async ensureNamespace(namespace: Namespace): Promise<NamespaceEnsureResult> {
    try {
      return await this.ensureNamespaceOrThrow(namespace);
    } catch (error) {
      const failure = toComputeError(error);
      return { namespaceId: namespace.id, namespaceReady: false, failure: failure.failure, reason: namespaceFailureReason(failure) };
    }
  }

  /** ensureNamespace for operator tools: the failure is thrown with its cause instead of folded into the result. */
  async ensureNamespaceOrThrow(namespace: Namespace): Promise<NamespaceEnsureResult> {
    const owners = this.hooks.ownersForOperation();
    const signal = this.operationSignal();
    refuseExistingNamespace(namespace);
    await this.send(namespace.name, 'ensure-namespace', namespaceArgs(namespace), signal);
    await runNamespaceHooks(owners, 'afterNamespacePrepared', namespace, signal);
    return { namespaceId: namespace.id, namespaceReady: true };
  }

  /** Copies the authoritative Namespace, Agent and ServicePrincipal; revision operations require it. A second binding may repeat, never move, an Agent. */
  bindAgent(binding: ComputeAgentBinding): void {
    this.bindings.bind(binding);
  }

  /**
   * OCC's deploy admission: only OpenClaw in embedded mode with `{ "method": "runtime" }`, no OCC
   * Secret bindings, and a native document SSH can render, so a bad one is refused before OCC commits.
   */
  validateHarnessAuth(harness: unknown, auth: unknown, configuration: unknown, secretBindings?: unknown, credentialSourceType?: unknown): void {
    validateHarnessAuth(harness, auth, secretBindings, credentialSourceType);
    sshGatewayConfigurationDocument(configuration);
  }

  /** OCC's gateway-settings admission: the same document admission, so a setting the gateway cannot start with is refused before OCC commits. */
  validateGatewaySettings(configuration: unknown): void {
    sshGatewayConfigurationDocument(configuration);
  }

  /** For OCC's worker.compute-prepare-failed log event: the catalogue code, stage and one printable line. */
  describePrepareRevisionFailure(error: unknown): PrepareFailureDiagnostic {
    return describePrepareRevisionFailure(error);
  }

  /**
   * Stages the account, port and immutable snapshot; never touches the unit or `current`. With a
   * workspace setup, then delivers its documents (or verifies its marker once OCC recorded it complete),
   * so OCC's commit comes only after the workspace is ready and a refusal leaves the old gateway serving.
   */
  async prepareRevision(revision: AgentRevision, context?: ComputeRevisionContext): Promise<ComputeReadiness> {
    this.hooks.ownersForOperation();
    const { bound, setup } = this.admit(revision, context);
    const signal = this.operationSignal();
    const { result } = await this.send(bound.namespace.name, 'prepare-revision', this.preparation(bound, revision), signal);
    if (setup && result.ready) await this.send(bound.namespace.name, 'setup-workspace', setupArgs(bound.owner, revision, setup), signal);
    return { namespaceId: revision.namespaceId, agentId: revision.agentId, revisionId: revision.id, ready: result.ready };
  }

  /** After OCC commits: start hooks, then render the unit, switch `current`, restart and wait for readiness. */
  async activateRevision(revision: AgentRevision, context?: ComputeRevisionContext): Promise<void> {
    const owners = this.hooks.ownersForOperation();
    const { bound, setup } = this.admit(revision, context);
    // Admitted before any hook runs: a document the gateway cannot start with starts nothing.
    const rendered = sshGatewayConfigurationDocument(revision.configuration);
    const signal = this.operationSignal();
    const started = await runStartHooks(owners, revision, signal);
    try {
      await this.send(bound.namespace.name, 'activate-revision', this.activation(bound, revision, setup, started.environment, rendered.hash), signal);
    } catch (error) {
      await compensate(started.started, revision);
      throw toComputeError(error);
    }
  }

  /** Verifies ownership only: SSH has no dedicated topology to deactivate. */
  async deactivateRevision(revision: AgentRevision): Promise<void> {
    this.hooks.ownersForOperation();
    const bound = this.target(revision);
    await this.send(bound.namespace.name, 'verify-revision', revisionArgs(bound.owner, revision), this.operationSignal());
  }

  /** Stop hooks, then stop and disable the unit and remove `current` and served.json; the snapshot stays. */
  async stopRevision(revision: AgentRevision): Promise<void> {
    await this.stopRevisionReport(revision);
  }

  /** stopRevision, telling what the host found: `currentRemoved` is false when this revision was not running. */
  async stopRevisionReport(revision: AgentRevision): Promise<StopReport> {
    const owners = this.hooks.ownersForOperation();
    const bound = this.target(revision);
    const signal = this.operationSignal();
    await runStopHooks(owners, revision, signal);
    const { result } = await this.send(bound.namespace.name, 'stop-revision', revisionArgs(bound.owner, revision), signal);
    return result;
  }

  /** Stop hooks, then remove only this snapshot (stopping the gateway first if it is current). */
  async retireRevision(revision: AgentRevision): Promise<void> {
    const owners = this.hooks.ownersForOperation();
    const bound = this.target(revision);
    const signal = this.operationSignal();
    await runStopHooks(owners, revision, signal);
    await this.send(bound.namespace.name, 'retire-revision', revisionArgs(bound.owner, revision), signal);
  }

  /**
   * OCC's Agent deletion, after it retired every revision: the binding is verified as bindAgent
   * verifies it (OCC binds only an Agent that has revisions), then the helper verifies the Agent's
   * markers, account and unit and removes them, its directory and its port. Absence is success. No
   * lifecycle hook runs: retirement already ran beforeWorkloadStop for each revision. The Agent's
   * binding is cleared only after the host deletion succeeds.
   */
  async deleteAgentRuntimeCredentials(binding: ComputeAgentBinding): Promise<void> {
    await this.deleteAgent(binding);
  }

  /** deleteAgentRuntimeCredentials for operator tools: what the host removed. */
  async deleteAgent(binding: ComputeAgentBinding): Promise<AgentDeletionReport> {
    this.hooks.ownersForOperation();
    this.bindings.bind(binding);
    const owner = ownerOf(binding);
    const { result } = await this.send(owner.namespace.name, 'delete-agent', deleteAgentArgs(owner), this.operationSignal());
    this.bindings.clearAgent(owner.agent.id);
    return result;
  }

  /** beforeNamespaceDelete hooks, then the host deletion; bindings are cleared only after it succeeds. */
  async deleteNamespace(namespace: Namespace): Promise<NamespaceDeleteResult> {
    try {
      return await this.deleteNamespaceOrThrow(namespace);
    } catch (error) {
      return { namespaceId: namespace.id, namespaceDeleted: false, failure: toComputeError(error).failure };
    }
  }

  /** deleteNamespace for operator tools: the failure is thrown with its cause instead of folded into the result. */
  async deleteNamespaceOrThrow(namespace: Namespace): Promise<NamespaceDeleteResult> {
    const owners = this.hooks.ownersForOperation();
    const signal = this.operationSignal();
    refuseExistingNamespace(namespace);
    hostFor(this.config, namespace.name);
    await runNamespaceHooks(owners, 'beforeNamespaceDelete', namespace, signal);
    await this.send(namespace.name, 'delete-namespace', namespaceArgs(namespace), signal);
    this.bindings.clearNamespace(namespace.id);
    return { namespaceId: namespace.id, namespaceDeleted: true };
  }

  /**
   * For the operator CLI: the host and loopback port of the Agent's gateway. Not OCC's
   * getGatewayEndpoint, which SSH Compute leaves absent (workspace-file endpoint resolution is unsupported).
   */
  async gatewayAddress(revision: AgentRevision): Promise<GatewayAddress> {
    this.hooks.ownersForOperation();
    const bound = this.target(revision);
    const { result } = await this.send(bound.namespace.name, 'verify-revision', revisionArgs(bound.owner, revision), this.operationSignal());
    if (result.port === undefined) throw new ComputeError('ownership', `Agent ${revision.agentId} has no gateway on its host yet`);
    const host = hostFor(this.config, bound.namespace.name);
    return { host: host.address, port: result.port, url: `http://127.0.0.1:${result.port}` };
  }

  /**
   * OCC's runtime diagnostics of one revision: up to 32 generic checks read on its host without the
   * host lock, changing nothing, in a few seconds whatever the gateway does (deployment-diagnostics.ts;
   * the checks are listed in docs/integration.md). The binding is verified as teardown verifies it.
   */
  async diagnoseAgentDeployment(binding: ComputeAgentRevisionBinding): Promise<AgentDeploymentDiagnostics> {
    const { revision } = binding;
    this.bindings.bind(binding);
    if (revision?.agentId !== binding.agent.id || revision.namespaceId !== binding.namespace.id) {
      throw new ComputeError('unbound', `revision ${String(revision?.id)} is not a revision of Agent ${binding.agent.id} in Namespace ${binding.namespace.id}`);
    }
    const bound = this.target(revision);
    const args = revisionArgs(bound.owner, revision);
    return diagnoseDeployment(revision.id, () => this.send(bound.namespace.name, 'diagnose-deployment', args, this.operationSignal()));
  }

  /** Releases transport resources (pooled connections). */
  async close(): Promise<void> {
    await this.runner.close();
  }

  /**
   * Teardown and reads (stop, retire, deactivate, gateway address): the exact bound Agent, the bound
   * ServicePrincipal, and this driver's Compute identity or an earlier or later version of its package,
   * so that an upgraded driver can still retire what the previous version deployed.
   */
  private target(revision: AgentRevision) {
    const bound = this.bindings.require(revision);
    checkRevisionIdentity(revision, bound.agent, this, 'teardown');
    return bound;
  }

  /** Preparation and activation: this exact implementation only, and everything SSH cannot honour refused (a bad workspace setup too), before any hook or host. */
  private admit(revision: AgentRevision, context: ComputeRevisionContext | undefined) {
    const bound = this.bindings.require(revision);
    admitRevision(revision, bound.agent, this);
    admitContext(context);
    return { bound, setup: admitWorkspaceSetup(context?.workspaceSetup, revision) };
  }

  /** The call and its plan render the document the same way. */
  private preparation(bound: BoundRevision, revision: AgentRevision): OperationArgs<'prepare-revision'> {
    return prepareArgs(bound.owner, revision, sshGatewayConfigurationDocument(revision.configuration));
  }

  /** The call and its plan bound readiness the same way; a plan has no launch environment. */
  private activation(
    bound: BoundRevision,
    revision: AgentRevision,
    setup: { id: string } | undefined,
    launchEnvironment: Record<string, string>,
    configurationHash: string,
  ): OperationArgs<'activate-revision'> {
    return activateArgs(bound.owner, revision, { configurationHash, launchEnvironment, readinessTimeoutMs: this.readinessTimeoutMs, setup });
  }

  /**
   * For the operator CLI's `plan`: what one host operation would change, asked with the arguments the
   * real call sends after the same admission, so a refusal is the real one. No hook runs: a plan has
   * no launch environment to make, and activation is planned with none (the CLI registers no hooks).
   */
  async planOperation(intent: PlanIntent): Promise<OperationPlan> {
    this.hooks.ownersForOperation();
    const signal = this.operationSignal();
    const ask = async <O extends PlannedOperation>(namespaceName: string, operation: O, args: OperationArgs<O>) => {
      try {
        return (await this.send(namespaceName, 'plan-operation', { operation, args } as OperationArgs<'plan-operation'>, signal)).result;
      } catch (error) {
        throw asPlannedOperation(toComputeError(error), operation);
      }
    };
    switch (intent.operation) {
      case 'ensure-namespace':
      case 'delete-namespace':
        if (intent.operation === 'ensure-namespace') refuseExistingNamespace(intent.namespace);
        return ask(intent.namespace.name, intent.operation, namespaceArgs(intent.namespace));
      case 'prepare-revision': {
        const { bound } = this.admit(intent.revision, undefined);
        return ask(bound.namespace.name, 'prepare-revision', this.preparation(bound, intent.revision));
      }
      case 'setup-workspace': {
        const { bound, setup } = this.admit(intent.revision, intent.context);
        if (!setup) throw new ComputeError('admission', 'a workspace setup plan needs a workspace setup');
        return ask(bound.namespace.name, 'setup-workspace', setupArgs(bound.owner, intent.revision, setup));
      }
      case 'activate-revision': {
        const { bound, setup } = this.admit(intent.revision, intent.context);
        const { hash } = sshGatewayConfigurationDocument(intent.revision.configuration);
        return ask(bound.namespace.name, 'activate-revision', this.activation(bound, intent.revision, setup, {}, hash));
      }
      case 'stop-revision':
      case 'retire-revision': {
        const bound = this.target(intent.revision);
        return ask(bound.namespace.name, intent.operation, revisionArgs(bound.owner, intent.revision));
      }
      case 'delete-agent': {
        this.bindings.bind(intent.binding);
        const owner = ownerOf(intent.binding);
        return ask(owner.namespace.name, 'delete-agent', deleteAgentArgs(owner));
      }
    }
  }

  /** For the operator CLI: one page of the Agent's gateway journal (read-only; the host derives unit and UID). */
  async readLogs(binding: ComputeAgentBinding, query: LogQuery): Promise<LogPage> {
    const owner = ownerOf(binding);
    return (await this.send(owner.namespace.name, 'read-logs', readLogsArgs(owner, query), this.operationSignal())).result;
  }

  /**
   * For the operator CLI: the page `query` selects, then each new entry as it comes, all handed to
   * `onEntries`, from one journalctl --follow on the host with the same selection. It ends after
   * `seconds` (at most, and by default, 150), once 2 MiB of entries were sent, or when `signal` aborts
   * (a cancelled error; closing the session ends journalctl on the host).
   */
  async followLogs(binding: ComputeAgentBinding, query: LogQuery, onEntries: (entries: LogEntry[]) => void, options: LogFollowOptions = {}): Promise<LogFollowEnd> {
    const owner = ownerOf(binding);
    const stream = randomBytes(16).toString('hex');
    const follow = { seconds: Math.min(options.seconds ?? MAX_FOLLOW_SECONDS, MAX_FOLLOW_SECONDS), stream };
    const stop = this.streams.listen(stream, onEntries);
    try {
      const signal = options.signal ?? this.operationSignal();
      const { result } = await this.send(owner.namespace.name, 'read-logs', { ...readLogsArgs(owner, query), follow }, signal);
      return { unit: result.unit, uid: result.uid, cursor: result.cursor, truncated: result.truncated, ended: result.followEnded ?? 'journal' };
    } finally {
      stop();
    }
  }

  /** OCC's runtime view of one revision: its pod while the Agent's unit runs it (read-only, no host lock, bounded in time). */
  async describeAgentRuntime(binding: ComputeAgentRevisionBinding, signal: AbortSignal, options?: AgentRuntimeDescribeOptions): Promise<AgentRuntimeDescription> {
    const { owner } = this.runtimeTarget(binding);
    const { result } = await this.send(owner.namespace.name, 'describe-runtime', revisionArgs(owner, binding.revision), signal);
    return toDescription(binding.revision.id, result, options, new Date());
  }

  /** One bounded page of a listed pod's gateway lines; a pod, source or container not listed is refused before any host is contacted. */
  async readAgentRuntimeLogs(binding: ComputeAgentRevisionBinding, request: AgentRuntimeLogRequest): Promise<AgentRuntimeLogChunk> {
    const { owner } = this.runtimeTarget(binding);
    const query = admitLogRequest(owner.agent.id, request);
    const { result } = await this.send(owner.namespace.name, 'read-logs', readLogsArgs(owner, query, binding.revision), request.signal);
    return toLogChunk(request, result, query.limitBytes!, new Date());
  }

  /** OCC's API process calls the runtime reads without bindAgent: the binding is verified as bindAgent verifies it, then the revision as teardown does. */
  private runtimeTarget(binding: ComputeAgentRevisionBinding) {
    this.bindings.bind(binding);
    const { revision, agent, namespace } = binding;
    if (revision?.agentId !== agent.id || revision.namespaceId !== namespace.id) throw new ComputeError('unbound', `revision ${String(revision?.id)} does not belong to Agent ${agent.id}`);
    return this.target(revision);
  }

  /** Read-only view of every Namespace and Agent on the host that serves `namespaceName` (operator status). */
  async inventory(namespaceName: string): Promise<HostInventory> {
    return (await this.send(namespaceName, 'inventory', {}, this.operationSignal())).result;
  }

  private send<O extends OperationName>(namespaceName: string, operation: O, args: OperationArgs<O>, signal: AbortSignal | undefined): Promise<OperationOutcome<O>> {
    return this.runner.run(namespaceName, operation, args, signal);
  }
}

/** A plan's refusal names the operation planned, as the real call's refusal does: the same code, message and details. */
function asPlannedOperation(error: ComputeError, operation: PlannedOperation): ComputeError {
  const prefix = 'plan-operation on host ';
  const message = error.message.startsWith(prefix) ? `${operation} on host ${error.message.slice(prefix.length)}` : error.message;
  return new ComputeError(error.code, message, { ...error.details, ...(error.details.operation ? { operation } : {}) });
}

/**
 * What the real driver call of each mutating operation is given, and so what its plan is given. It is
 * indexed by every PlannedOperation, the table's mutating set: a new mutating operation without an
 * entry here does not compile, nor does one without a case in planOperation.
 */
interface PlanInputs {
  'ensure-namespace': { namespace: Namespace };
  'prepare-revision': { revision: AgentRevision };
  'setup-workspace': { revision: AgentRevision; context?: ComputeRevisionContext };
  'activate-revision': { revision: AgentRevision; context?: ComputeRevisionContext };
  'stop-revision': { revision: AgentRevision };
  'retire-revision': { revision: AgentRevision };
  'delete-agent': { binding: ComputeAgentBinding };
  'delete-namespace': { namespace: Namespace };
}

// Written out for the package's readers (its declarations name no internal type);
// `_PLAN_INTENT_IS_THE_TABLE` below keeps it equal to what PlanInputs derives from the table.
/** One host operation a `plan` asks about, with what the real driver call would be given. */
export type PlanIntent =
  | { operation: 'ensure-namespace' | 'delete-namespace'; namespace: Namespace }
  | { operation: 'prepare-revision' | 'stop-revision' | 'retire-revision'; revision: AgentRevision }
  | { operation: 'setup-workspace' | 'activate-revision'; revision: AgentRevision; context?: ComputeRevisionContext }
  | { operation: 'delete-agent'; binding: ComputeAgentBinding };

type DerivedPlanIntent = { [O in PlannedOperation]: { operation: O } & PlanInputs[O] }[PlannedOperation];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Compile-time only: a mutating operation missing from PlanIntent, or one PlanIntent names that the
// table does not plan, makes this `false` and the build fails.
const _PLAN_INTENT_IS_THE_TABLE: Same<PlanIntent, DerivedPlanIntent> = true;

const ofRevision = (revision: AgentRevision): ResourceIds => ({ namespaceId: revision.namespaceId, agentId: revision.agentId, revisionId: revision.id });
const ofNamespace = (namespace: Namespace): ResourceIds => ({ namespaceId: namespace.id });

/** The driver methods OCC calls that reach hosts, each with the resource IDs its span carries, read from its typed arguments. */
const TRACED: TracedMethods<SshComputeDriver> = {
  preflight: () => ({}),
  ensureNamespace: ofNamespace,
  deleteNamespace: ofNamespace,
  prepareRevision: ofRevision,
  activateRevision: ofRevision,
  deactivateRevision: ofRevision,
  stopRevision: ofRevision,
  retireRevision: ofRevision,
  deleteAgentRuntimeCredentials: (binding) => ({ namespaceId: binding.namespace.id, agentId: binding.agent.id }),
  diagnoseAgentDeployment: (binding) => ofRevision(binding.revision),
  describeAgentRuntime: (binding) => ofRevision(binding.revision),
  readAgentRuntimeLogs: (binding) => ofRevision(binding.revision),
};

/** The names of the traced methods: method names of the driver, by type. */
export const TRACED_METHODS = Object.keys(TRACED) as (keyof SshComputeDriver)[];
