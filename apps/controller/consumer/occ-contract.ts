// A local copy of OCC's Compute driver contract (ComputeDriver and what it takes and returns),
// written from OCC's published field names. The consumer check assigns the installed package's
// createDriver(...) to it, so a drift between this package and OCC fails the type check.

export interface Namespace {
  readonly id: string;
  readonly name: string;
  readonly existingNamespace?: string;
  readonly status: 'provisioning' | 'ready' | 'failed' | 'deleting';
  readonly createdAt: string;
}

export type HarnessAuthBinding =
  | { readonly method: 'api_key' | 'codex_pat' | 'oauth'; readonly source: SecretReference }
  | { readonly method: 'chatgpt_service_account'; readonly serviceAccountId: string }
  | { readonly method: 'credential_source'; readonly sourceId: string }
  | { readonly method: 'runtime' };

export interface SecretReference {
  readonly kind: 'secret';
  readonly id: string;
  readonly namespaceId: string;
}

export interface PluginApprover {
  readonly channel: string;
  readonly id: string;
}

export interface Agent {
  readonly id: string;
  readonly namespaceId: string;
  readonly name: string;
  readonly configurationId: string;
  readonly servicePrincipalId: string;
  readonly createdAt: string;
  readonly desiredRuntimeState: 'running' | 'stopped';
  readonly status: 'active' | 'deleting';
  readonly backendId: string | null;
  readonly harnessAuth: HarnessAuthBinding | null;
  readonly executionMode: 'embedded' | 'dedicated';
  readonly plugins?: Readonly<Record<string, { readonly enabled: boolean }>>;
  readonly pluginApprovers?: readonly PluginApprover[];
  readonly activeRevisionId?: string;
}

export type OpenClawConfigurationValue = null | boolean | number | string | readonly OpenClawConfigurationValue[] | { readonly [key: string]: OpenClawConfigurationValue };

export interface OpenClawConfigurationDocument {
  readonly [key: string]: OpenClawConfigurationValue;
}

export type SecretBindings = Readonly<Record<string, { readonly source: SecretReference; readonly delivery?: { readonly type: 'env' } }>>;

export interface RevisionHarnessDescriptor {
  readonly id: string;
  readonly version: string;
  readonly mode: 'embedded' | 'dedicated';
}

export type HarnessAuthSnapshot =
  | { readonly method: 'runtime' }
  | { readonly method: 'api_key' | 'codex_pat' | 'oauth'; readonly source: SecretReference; readonly secretDriverId: string }
  | { readonly method: 'credential_source'; readonly sourceId: string; readonly credentialGatewayId: string; readonly sourceType: string; readonly loginMode: 'api_key' };

export interface AgentRevision {
  readonly id: string;
  readonly namespaceId: string;
  readonly agentId: string;
  readonly servicePrincipalId: string;
  readonly createdAt: string;
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
  readonly plugins?: { readonly driver: { readonly id: string; readonly implementation: string }; readonly plugins: Readonly<Record<string, { readonly enabled: boolean }>> };
  readonly pluginApprovers?: readonly PluginApprover[];
  readonly harnessAuth: HarnessAuthSnapshot;
}

export interface SecretBackendRef {
  readonly namespaceName: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
}

export interface ComputeRevisionContext {
  readonly harnessAuth: HarnessAuthSnapshot | (HarnessAuthSnapshot & { readonly backendRef: SecretBackendRef });
  readonly secretEnvironment: readonly { readonly name: string; readonly secretId: string; readonly namespaceId: string; readonly agentId: string; readonly backendRef: SecretBackendRef }[];
  readonly workspaceSetup?: { readonly id: string; readonly namespaceId: string; readonly agentId: string; readonly defaultsId?: string; readonly completed: boolean };
  readonly repositoryCredentials?: readonly { readonly repositoryRef: string; readonly sessionId: string; readonly deadlineWallMs: number }[];
}

export interface NamespaceEnsureResult {
  readonly namespaceId: string;
  readonly namespaceReady: boolean;
  readonly failure?: 'retryable' | 'permanent';
}

export interface NamespaceDeleteResult {
  readonly namespaceId: string;
  readonly namespaceDeleted: boolean;
  readonly failure?: 'retryable' | 'permanent';
}

export interface ComputeReadiness {
  readonly namespaceId: string;
  readonly agentId: string;
  readonly revisionId: string;
  readonly ready: boolean;
  readonly warnings?: readonly { readonly code: 'PLUGIN_INSTALL_FAILED' | 'PLUGIN_AUTH_REQUIRED'; readonly pluginId: string }[];
  readonly runtimeFailure?: { readonly component: string; readonly check: string; readonly checkedAt: string; readonly code: string };
  readonly pendingReason?: 'WORKLOAD_UNSCHEDULABLE' | 'WORKSPACE_NODE_PENDING';
  readonly repositoryCredentialMaterialMissing?: readonly { readonly repositoryRef: string; readonly sessionId: string }[];
}

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
  readonly capability: 'iam' | 'compute' | 'configuration' | 'service_account' | 'secret' | 'sandbox' | 'plugin' | 'channel' | 'repo' | 'credential_gateway';
  readonly implementation: string;
  readonly computeLifecycleHooks?: ComputeLifecycleHooks;
}

/**
 * OCC's prepare-failure diagnostic (worker.compute-prepare-failed): code ^[A-Z][A-Z0-9_]{0,63}$, stage
 * ^[a-z][a-z0-9_]{0,63}$, message one line of at most 256 printable characters. The types of
 * errorClass and status are not in our notes; unknown here checks only that they may be absent.
 */
export interface ComputePrepareFailureDiagnostic {
  readonly code: string;
  readonly stage: string;
  readonly errorClass?: unknown;
  readonly status?: unknown;
  readonly message?: string;
}

export interface ComputeDriver extends Driver {
  readonly capability: 'compute';
  readonly supportsWorkspaceSetup?: true;
  readonly operatorProvisionedSecrets?: true;
  readonly activationOrder?: 'beforeCommit' | 'afterCommit';
  readonly maintenanceIntervalMs?: number;
  requiresStoppedPredecessors?(revision: AgentRevision): boolean;
  validateHarnessAuth?(harness: RevisionHarnessDescriptor, auth: HarnessAuthSnapshot, configuration: OpenClawConfigurationDocument, secretBindings?: SecretBindings): void;
  // Our notes give only `validateGatewaySettings?(configuration)`: typed here like validateHarnessAuth's document, refusing by a throw.
  validateGatewaySettings?(configuration: OpenClawConfigurationDocument): void;
  describePrepareRevisionFailure?(error: unknown): ComputePrepareFailureDiagnostic;
  preflight?(): Promise<void | { readonly warnings: readonly { readonly code: string; readonly message: string }[] }>;
  setLifecycleDrivers?(drivers: readonly Driver[]): void;
  bindAgent?(binding: { readonly namespace: Readonly<Namespace>; readonly agent: Readonly<Agent> }): void | Promise<void>;
  getGatewayEndpoint?(revision: AgentRevision): string | undefined;
  ensureNamespace(namespace: Namespace): Promise<NamespaceEnsureResult>;
  deleteNamespace(namespace: Namespace): Promise<NamespaceDeleteResult>;
  prepareRevision(revision: AgentRevision, context?: ComputeRevisionContext): Promise<ComputeReadiness>;
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
