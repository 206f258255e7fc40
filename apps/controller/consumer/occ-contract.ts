// A local copy of OCC's Compute driver contract: the ComputeDriver interface with every optional
// member, and every type those members take and return, by OCC's field names
// (openclaw/openclaw-enterprise packages/contracts/src/index.ts @13e0db1a, repo.ts @3c55035c,
// workspace-setup.ts @13705e61). The consumer check assigns the installed package's createDriver(...)
// to it, so a drift between this package and OCC fails the type check.

// Resources and references.

export interface Scope {
  readonly namespaceId?: string;
}

export type ResourceKind = 'installation' | 'namespace' | 'configuration' | 'preset' | 'service_account' | 'secret' | 'agent' | 'agent_revision' | 'credential_source';

export interface ResourceRef extends Scope {
  readonly kind: ResourceKind;
  readonly id: string;
}

export interface SecretReference extends ResourceRef {
  readonly kind: 'secret';
  readonly namespaceId: string;
}

export interface ServiceAccountReference extends ResourceRef {
  readonly kind: 'service_account';
  readonly namespaceId: string;
}

export interface Namespace {
  readonly id: string;
  readonly name: string;
  readonly existingNamespace?: string;
  readonly status: 'provisioning' | 'ready' | 'failed' | 'deleting';
  readonly createdAt: string;
}

export type OpenClawConfigurationValue = null | boolean | number | string | readonly OpenClawConfigurationValue[] | { readonly [key: string]: OpenClawConfigurationValue };

export interface OpenClawConfigurationDocument {
  readonly [key: string]: OpenClawConfigurationValue;
}

export type SecretBindings = Readonly<Record<string, { readonly source: SecretReference; readonly delivery?: { readonly type: 'env' } }>>;

export interface SecretBackendRef {
  readonly namespaceName: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
}

export interface SecretEnvironmentProjection {
  readonly name: string;
  readonly secretId: string;
  readonly namespaceId: string;
  readonly agentId: string;
  readonly backendRef: SecretBackendRef;
}

export interface ServiceAccountCredential {
  readonly kind: 'api_key' | 'access_token' | 'oauth_access_token';
  readonly secretRef: { readonly name: string; readonly key: string };
}

// Credential sources.

export type CredentialSourceLoginMode = 'api_key' | 'chatgptAuthTokens';

export interface CredentialSourceFieldSpec {
  readonly name: string;
  readonly required: boolean;
  readonly description?: string;
}

/** The catalogue entry OCC passes as validateHarnessAuth's 5th argument. */
export interface CredentialSourceType {
  readonly deviceAuthorization?: { readonly harnessId: string };
  readonly type: string;
  readonly config: readonly CredentialSourceFieldSpec[];
  readonly secrets: readonly CredentialSourceFieldSpec[];
  readonly rotation: 'none' | 'external' | 'refresh';
  readonly harnessAuth?: { readonly modelProvider: string; readonly loginMode: CredentialSourceLoginMode };
}

export interface CredentialSource {
  readonly id: string;
  readonly namespaceId: string;
  readonly name: string;
  readonly type: string;
  readonly config: Readonly<Record<string, string>>;
  readonly secrets: Readonly<Record<string, SecretReference>>;
  readonly driverId: string;
  readonly state: 'registering' | 'ready' | 'deleting';
  readonly createdAt: string;
}

/** One non-model source frozen into a revision. */
export interface CredentialSourceSnapshot {
  readonly sourceId: string;
  readonly credentialGatewayId: string;
  readonly sourceType: string;
}

export interface CredentialAttachmentStatus {
  readonly sourceId: string;
  readonly state: 'ready' | 'pending' | 'withheld' | 'failed' | 'revoked' | 'absent';
  readonly reason?: string;
}

// Harness authentication.

export type HarnessAuthBinding =
  | { readonly method: 'api_key'; readonly source: SecretReference }
  | { readonly method: 'codex_pat'; readonly source: SecretReference }
  | { readonly method: 'codex_pat'; readonly source: ServiceAccountReference }
  | { readonly method: 'credential_source'; readonly sourceId: string }
  | { readonly method: 'runtime' };

export type HarnessAuthSnapshot =
  | { readonly method: 'runtime' }
  | { readonly method: 'api_key' | 'codex_pat'; readonly source: SecretReference; readonly secretDriverId: string }
  | {
      readonly method: 'codex_pat';
      readonly source: ServiceAccountReference;
      readonly credential: ServiceAccountCredential & { readonly kind: 'access_token' };
      readonly backendBinding: { readonly backendId: string; readonly driverId: string; readonly workspaceId: string; readonly credentialIssued: boolean };
    }
  | { readonly method: 'credential_source'; readonly sourceId: string; readonly credentialGatewayId: string; readonly sourceType: string; readonly loginMode: CredentialSourceLoginMode };

/** The snapshot as the worker resolves it again for each pass. */
export type ResolvedHarnessAuth =
  | (Extract<HarnessAuthSnapshot, { source: SecretReference }> & { readonly backendRef: SecretBackendRef })
  | (Extract<HarnessAuthSnapshot, { method: 'credential_source' }> & { readonly source: Readonly<CredentialSource> })
  | Extract<HarnessAuthSnapshot, { source: ServiceAccountReference } | { method: 'runtime' }>;

export interface RevisionHarnessDescriptor {
  readonly id: string;
  readonly version: string;
  readonly mode: 'embedded' | 'dedicated';
}

// Plugins.

export type PluginApprovalMode = 'provider_default' | 'all_actions' | 'write_actions' | 'none';

export interface PluginApprover {
  readonly channel: string;
  readonly id: string;
}

export type PluginApprovers = readonly PluginApprover[];

export interface PluginToolPolicy {
  readonly enabled?: boolean;
  readonly approval?: PluginApprovalMode;
  readonly reviewer?: 'human' | 'auto';
  readonly approvers?: PluginApprovers;
}

export interface PluginDesiredSelection {
  readonly enabled: boolean;
  readonly approvers?: PluginApprovers;
  readonly toolDefaults?: Omit<PluginToolPolicy, 'approvers'>;
  readonly driverPolicy?: Readonly<Record<string, unknown>>;
  readonly tools?: Readonly<Record<string, PluginToolPolicy>>;
}

export type PluginDesiredState = Readonly<Record<string, PluginDesiredSelection>>;

export interface PluginDriverIdentity {
  readonly id: string;
  readonly implementation: string;
}

// Repository credentials (repo.ts).

export type RepositoryCredentialGrantIdentity = Readonly<{ providerInstanceId: string; repositoryId: string; grantId: string }>;

export interface RepositoryBindingSelection {
  readonly repositoryRef: string;
  readonly profile: string;
}

export interface AdmittedRepositoryBinding extends RepositoryBindingSelection {
  readonly providerId: string;
  readonly grant: RepositoryCredentialGrantIdentity;
}

export interface RepositoryRevisionState {
  readonly driver: { readonly id: string; readonly implementation: string };
  readonly deadlineWallMs: number;
  readonly bindings: readonly AdmittedRepositoryBinding[];
}

export type RepositoryCredentialSessionFiles = Readonly<{
  bearer: string;
  'client.json': string;
  gitconfig: string;
  'gh/hosts.yml': string;
  'gh/config.yml': string;
  'ca.pem'?: string;
}>;

export interface RepositoryCredentialMaterialRef {
  readonly repositoryRef: string;
  readonly sessionId: string;
}

export type RepositoryCredentialRuntimeBinding = RepositoryCredentialMaterialRef & { readonly deadlineWallMs: number } & (
    { readonly kind: 'new'; readonly files: RepositoryCredentialSessionFiles } | { readonly kind: 'retained' }
  );

// Agents, revisions and the per-pass context.

export interface Agent extends Scope {
  readonly id: string;
  readonly namespaceId: string;
  readonly name: string;
  readonly desiredRuntimeState: 'running' | 'stopped';
  readonly status: 'active' | 'deleting';
  readonly configurationId: string;
  readonly backendId: string | null;
  readonly harnessAuth: HarnessAuthBinding | null;
  readonly credentialSources?: readonly { readonly sourceId: string }[];
  readonly executionMode: 'embedded' | 'dedicated';
  readonly plugins?: PluginDesiredState;
  readonly pluginApprovers?: PluginApprovers;
  readonly repositoryBindings?: readonly RepositoryBindingSelection[];
  // OCC exports RepositoryAccess from repo.ts, but the newest stored repo.ts does not define it yet.
  readonly repositoryAccess?: unknown;
  readonly servicePrincipalId: string;
  readonly activeRevisionId?: string;
  readonly createdAt: string;
}

export interface AgentRevision extends Scope {
  readonly id: string;
  readonly namespaceId: string;
  readonly agentId: string;
  readonly revision: number;
  readonly backendId: string | null;
  readonly configurationId: string;
  readonly configurationKind: 'agent';
  readonly configurationGeneration: number;
  readonly configuration: OpenClawConfigurationDocument;
  readonly harness: RevisionHarnessDescriptor;
  readonly compute: { readonly id: string; readonly implementation: string };
  readonly sandboxDriverId?: string;
  readonly secretDriverId?: string;
  readonly secretBindings?: SecretBindings;
  readonly plugins?: { readonly driver: PluginDriverIdentity; readonly plugins: PluginDesiredState };
  readonly pluginApprovers?: PluginApprovers;
  readonly repositoryCredentials?: RepositoryRevisionState;
  readonly harnessAuth: HarnessAuthSnapshot;
  readonly credentialSources?: readonly CredentialSourceSnapshot[];
  readonly servicePrincipalId: string;
  readonly createdAt: string;
}

export interface WorkspaceSetup {
  readonly id: string;
  readonly namespaceId: string;
  readonly agentId: string;
  readonly defaultsId?: string;
  readonly files?: Partial<Record<'AGENTS.md' | 'SOUL.md' | 'IDENTITY.md' | 'USER.md', string>>;
  readonly completed: boolean;
}

export interface ComputeRevisionContext {
  readonly workspaceSetup?: Readonly<WorkspaceSetup>;
  readonly harnessAuth: ResolvedHarnessAuth;
  readonly credentialSources?: readonly Readonly<CredentialSource>[];
  readonly secretEnvironment: readonly SecretEnvironmentProjection[];
  readonly repositoryCredentials?: readonly RepositoryCredentialRuntimeBinding[];
}

export interface ComputeAgentBinding {
  readonly namespace: Readonly<Namespace>;
  readonly agent: Readonly<Agent>;
}

export interface ComputeAgentRevisionBinding extends ComputeAgentBinding {
  readonly revision: Readonly<AgentRevision>;
}

// Results.

export interface NamespaceEnsureResult extends Scope {
  readonly namespaceId: string;
  readonly namespaceReady: boolean;
  readonly failure?: 'retryable' | 'permanent';
  /** At most 256 printable characters; OCC only logs it. */
  readonly reason?: string;
}

export interface NamespaceDeleteResult extends Scope {
  readonly namespaceId: string;
  readonly namespaceDeleted: boolean;
  readonly failure?: 'retryable' | 'permanent';
}

export interface RuntimeFailureEvidence {
  readonly component: string;
  readonly check: string;
  readonly checkedAt: string;
  readonly code: string;
  readonly cause?: { readonly kind: 'PROCESS_EXIT' | 'PROBE_STATUS' | 'INVALID_OUTPUT' | 'WRAPPER_ERROR'; readonly detail?: string };
}

export interface ComputeReadiness extends Scope {
  readonly namespaceId: string;
  readonly agentId: string;
  readonly revisionId: string;
  readonly ready: boolean;
  readonly warnings?: readonly { readonly code: 'PLUGIN_INSTALL_FAILED' | 'PLUGIN_AUTH_REQUIRED'; readonly pluginId: string }[];
  readonly runtimeFailure?: RuntimeFailureEvidence;
  readonly pendingReason?: 'WORKLOAD_UNSCHEDULABLE' | 'WORKSPACE_NODE_PENDING';
  readonly repositoryCredentialMaterialMissing?: readonly RepositoryCredentialMaterialRef[];
}

/** OCC's worker logs it only when code, stage, errorClass, message and status all fit its formats. */
export interface ComputePrepareRevisionFailureDiagnostic {
  readonly code: string;
  readonly stage: string;
  readonly errorClass?: string;
  readonly message?: string;
  readonly status?: number;
}

export interface ComputePreflightResult {
  readonly warnings: readonly { readonly code: string; readonly message: string }[];
}

export interface ComputeAgentProvisioningCapabilities {
  readonly executionModes: readonly ('embedded' | 'dedicated')[];
}

export interface AgentRuntimeCredentialStatus {
  readonly transportConfigured: boolean;
}

export interface AgentDeploymentDiagnostics {
  readonly revisionId: string;
  readonly observedAt: string;
  readonly checks: readonly {
    readonly component: string;
    readonly check: string;
    readonly state: 'succeeded' | 'failed' | 'unknown';
    readonly checkedAt: string | null;
    readonly code?: string;
  }[];
}

export interface RuntimeImage {
  readonly workload: string;
  readonly container: string;
  readonly image: string;
  readonly imageId: string | null;
  readonly commit: string | null;
  readonly openclawCommit: string | null;
}

// Runtime description and logs (describeAgentRuntime, readAgentRuntimeLogs).

export type RuntimeLogContainerSourceId = 'gateway' | 'agent';

export interface RuntimeLogStream {
  readonly source: RuntimeLogContainerSourceId | 'sandbox';
  readonly pod?: string;
  readonly podUid?: string;
  readonly container?: string;
  readonly restartCount?: number;
  readonly sandbox?: string;
}

export interface AgentRuntimeContainerStatus {
  readonly name: string;
  readonly state: 'waiting' | 'running' | 'terminated' | 'unknown';
  readonly reason: string | null;
  readonly ready: boolean;
  readonly restartCount: number;
  readonly startedAt: string | null;
  readonly lastTermination: { readonly reason: string | null; readonly exitCode: number | null; readonly finishedAt: string | null } | null;
}

export interface AgentRuntimePodStatus {
  readonly role: RuntimeLogContainerSourceId;
  readonly cluster: 'control' | 'execution';
  readonly name: string;
  readonly uid: string;
  readonly phase: string;
  readonly ready: boolean;
  readonly createdAt: string | null;
  readonly containers: readonly AgentRuntimeContainerStatus[];
  readonly events: readonly {
    readonly type: 'Normal' | 'Warning';
    readonly container: string | null;
    readonly reason: string;
    readonly message: string;
    readonly count: number;
    readonly lastObservedAt: string | null;
  }[];
}

export interface AgentRuntimeDescription {
  readonly revisionId: string;
  readonly observedAt: string;
  readonly pods: readonly AgentRuntimePodStatus[];
  readonly sources: readonly {
    readonly id: RuntimeLogContainerSourceId | 'sandbox';
    readonly kind: 'container' | 'sandbox';
    readonly pods: readonly { readonly name: string; readonly uid: string; readonly container: string; readonly restartCount: number }[];
    readonly available: boolean;
    readonly unavailableCode?: 'NO_POD';
    readonly retention: string;
  }[];
}

export interface AgentRuntimeDescribeOptions {
  readonly source?: RuntimeLogContainerSourceId;
  readonly events?: boolean;
}

export interface AgentRuntimeLogRequest {
  readonly source: RuntimeLogContainerSourceId;
  readonly pod: string;
  readonly podUid: string;
  readonly container: string;
  readonly previous: boolean;
  readonly tailLines: number;
  readonly sinceSeconds?: number;
  readonly limitBytes: number;
  readonly signal: AbortSignal;
}

export interface AgentRuntimeLogChunk {
  readonly stream: RuntimeLogStream;
  readonly observedAt: string;
  readonly lines: readonly { readonly time: string | null; readonly raw: string }[];
  readonly truncated: boolean;
}

// Drivers.

export interface WorkloadLaunchContext {
  environment: Record<string, string>;
}

export interface ComputeLifecycleHooks {
  afterNamespacePrepared?(namespace: Readonly<Namespace>, signal: AbortSignal): Promise<void>;
  beforeWorkloadStart?(revision: Readonly<AgentRevision>, launch: WorkloadLaunchContext, signal: AbortSignal): Promise<void>;
  beforeWorkloadStop?(revision: Readonly<AgentRevision>, signal: AbortSignal): Promise<void>;
  beforeNamespaceDelete?(namespace: Readonly<Namespace>, signal: AbortSignal): Promise<void>;
}

export interface Driver {
  readonly id: string;
  readonly capability: 'iam' | 'compute' | 'configuration' | 'service_account' | 'secret' | 'sandbox' | 'plugin' | 'channel' | 'repo' | 'credential_gateway' | 'credential_refresh';
  readonly implementation: string;
  readonly computeLifecycleHooks?: ComputeLifecycleHooks;
}

export interface ComputeDriver extends Driver {
  readonly supportsWorkspaceSetup?: true;
  readonly capability: 'compute';
  // Not in index.ts @13e0db1a: OCC's ChannelDriver docs and its SSH reference (@0da96fe8) name it.
  readonly operatorProvisionedSecrets?: true;
  readonly requiresAgentRuntimeCredentials?: true;
  readonly runtimeLogging?: 'platform' | 'driver';
  readonly agentProvisioning?: ComputeAgentProvisioningCapabilities;
  readonly activationOrder?: 'beforeCommit' | 'afterCommit';
  readonly maintenanceIntervalMs?: number;
  requiresStoppedPredecessors?(revision: AgentRevision): boolean;
  getRuntimeImages?(revision: AgentRevision): Promise<readonly RuntimeImage[]>;
  discoverHarnessModels?(input: {
    readonly authMethod: 'api_key' | 'codex_pat';
    readonly provider: string;
    readonly apiKey: string;
  }): Promise<readonly { readonly id: string; readonly name: string }[]>;
  validateAgentProvisioning?(input: { readonly executionMode: 'embedded' | 'dedicated'; readonly configuration: Readonly<OpenClawConfigurationDocument> }): void;
  validateGatewaySettings?(configuration: Readonly<OpenClawConfigurationDocument>): void;
  validateHarnessAuth?(
    harness: RevisionHarnessDescriptor,
    auth: HarnessAuthSnapshot,
    configuration: OpenClawConfigurationDocument,
    secretBindings?: SecretBindings,
    credentialSourceType?: CredentialSourceType,
  ): void;
  validateRepositoryCredentialSupport?(sandboxDriverId?: string): void;
  validateRepositoryCredentials?(harness: RevisionHarnessDescriptor, sandboxDriverId?: string): void;
  preflight?(): Promise<void | ComputePreflightResult>;
  setLifecycleDrivers?(drivers: readonly Driver[]): void;
  bindAgent?(binding: ComputeAgentBinding): void | Promise<void>;
  getAgentRuntimeCredentialStatus?(binding: ComputeAgentBinding): Promise<AgentRuntimeCredentialStatus>;
  provisionAgentRuntimeCredentials?(binding: ComputeAgentBinding, input: Readonly<Record<never, never>>): Promise<AgentRuntimeCredentialStatus>;
  diagnoseAgentDeployment?(binding: ComputeAgentRevisionBinding): Promise<AgentDeploymentDiagnostics>;
  describeAgentRuntime?(binding: ComputeAgentRevisionBinding, signal: AbortSignal, options?: AgentRuntimeDescribeOptions): Promise<AgentRuntimeDescription>;
  readAgentRuntimeLogs?(binding: ComputeAgentRevisionBinding, request: AgentRuntimeLogRequest): Promise<AgentRuntimeLogChunk>;
  deleteAgentRuntimeCredentials?(binding: ComputeAgentBinding): Promise<void>;
  deleteServiceAccountCredential?(input: { readonly namespaceId: string; readonly serviceAccountId: string; readonly secretRef: ServiceAccountCredential['secretRef'] }): Promise<void>;
  getGatewayEndpoint?(revision: AgentRevision): string | undefined;
  ensureNamespace(namespace: Namespace): Promise<NamespaceEnsureResult>;
  deleteNamespace(namespace: Namespace): Promise<NamespaceDeleteResult>;
  resolveSandboxNamespace?(namespace: Readonly<Namespace>): Promise<Readonly<Namespace>>;
  withdrawCredentialSource?(revision: Readonly<AgentRevision>, source: Readonly<CredentialSource>, signal: AbortSignal, options?: { readonly recheck?: boolean }): Promise<CredentialAttachmentStatus>;
  prepareRevision(revision: AgentRevision, context?: ComputeRevisionContext): Promise<ComputeReadiness>;
  describePrepareRevisionFailure?(error: unknown): ComputePrepareRevisionFailureDiagnostic | undefined;
  activateRevision?(revision: AgentRevision, context?: ComputeRevisionContext): Promise<void>;
  deactivateRevision?(revision: AgentRevision): Promise<void>;
  stopRevision(revision: AgentRevision): Promise<void>;
  retireRevision(revision: AgentRevision): Promise<void>;
}

/** What OCC's package loader imports from an external driver package. */
export interface DriverPackageModule {
  readonly configurationSchema: Readonly<Record<string, unknown>>;
  validateConfiguration(configuration: unknown): void;
  createDriver(options: {
    readonly id: string;
    readonly implementation: string;
    readonly configuration: Readonly<Record<string, unknown>>;
    readonly getOperationAbortSignal?: () => AbortSignal | undefined;
  }): unknown;
}
