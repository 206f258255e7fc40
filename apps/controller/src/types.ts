// The OCC resources the driver receives and the results it returns. Field names and types are
// OCC's own (its ComputeDriver contract), so a refusal keyed to a field always sees what OCC sends.
// Fields OCC always sends but the driver never reads are optional here: an OCC value still fits.

/** The native OpenClaw configuration document (openclaw.json) as OCC admitted it: JSON values by key. */
export interface ConfigurationDocument {
  readonly [key: string]: unknown;
}

/** A Namespace as OCC owns it; its exact `name` selects the host in the Installation. */
export interface Namespace {
  readonly id: string;
  readonly name: string;
  /** Adoption of an existing backend namespace; SSH Compute refuses it. */
  readonly existingNamespace?: string;
  readonly status?: 'provisioning' | 'ready' | 'failed' | 'deleting';
  readonly createdAt?: string;
}

/** One approver of a plugin policy. */
export interface PluginApprover {
  readonly channel: string;
  readonly id: string;
}

/** An Agent as OCC owns it. */
export interface Agent {
  readonly id: string;
  readonly namespaceId: string;
  /** The identity the Agent's workload acts as. */
  readonly servicePrincipalId: string;
  /** Default plugin approver policy; SSH Compute refuses any, including an empty list. */
  readonly pluginApprovers?: readonly PluginApprover[];
  readonly plugins?: Readonly<Record<string, unknown>>;
  readonly name?: string;
  readonly configurationId?: string;
  readonly desiredRuntimeState?: 'running' | 'stopped';
  readonly status?: 'active' | 'deleting';
  readonly backendId?: string | null;
  readonly harnessAuth?: unknown;
  /** Non-model credential sources future revisions freeze; the driver reads only the revision's own list. */
  readonly credentialSources?: readonly unknown[];
  readonly executionMode?: 'embedded' | 'dedicated';
  readonly activeRevisionId?: string;
  readonly createdAt?: string;
}

/** The Harness a revision runs; SSH Compute runs only OpenClaw in `embedded` mode. */
export interface RevisionHarness {
  readonly id: string;
  readonly version: string;
  readonly mode: 'embedded' | 'dedicated';
}

/** Harness authentication recorded in a revision; SSH Compute accepts only `{ method: "runtime" }`. */
export interface HarnessAuthSnapshot {
  readonly method: string;
  readonly [key: string]: unknown;
}

/** OCC Secret bindings: environment variable name to Secret reference. SSH Compute refuses any. */
export type SecretBindings = Readonly<
  Record<string, { readonly source: { readonly kind: 'secret'; readonly id: string; readonly namespaceId: string }; readonly delivery?: { readonly type: 'env' } }>
>;

/** The Compute driver identity a revision was admitted for. */
export interface ComputeIdentity {
  readonly id: string;
  readonly implementation: string;
}

/** One admitted AgentRevision: an immutable, numbered configuration of an Agent. */
export interface AgentRevision {
  readonly id: string;
  readonly namespaceId: string;
  readonly agentId: string;
  /** 1, 2, … per Agent; a lower number is a predecessor. */
  readonly revision: number;
  readonly servicePrincipalId: string;
  readonly configuration: ConfigurationDocument;
  readonly harness: RevisionHarness;
  /** Must equal the driver's own id and implementation. */
  readonly compute: ComputeIdentity;
  readonly harnessAuth: HarnessAuthSnapshot;
  /** Refused by SSH Compute: no Sandbox composition. */
  readonly sandboxDriverId?: string;
  readonly secretDriverId?: string;
  /** Refused by SSH Compute when it has any entry. */
  readonly secretBindings?: SecretBindings;
  /** Requested plugins; SSH Compute refuses a nonempty map. */
  readonly plugins?: { readonly driver: ComputeIdentity; readonly plugins: Readonly<Record<string, unknown>> };
  /** Refused by SSH Compute, even an empty list. */
  readonly pluginApprovers?: readonly PluginApprover[];
  /** Repository credentials cannot be delivered to an SSH host; refused. */
  readonly repositoryCredentials?: unknown;
  /** Non-model credential sources frozen at admission; refused by SSH Compute when it has any entry. */
  readonly credentialSources?: readonly unknown[];
  readonly backendId?: string | null;
  readonly configurationId?: string;
  readonly configurationKind?: 'agent';
  readonly configurationGeneration?: number;
  readonly createdAt?: string;
}

/** One Secret projected into a workload's environment: references, never values. */
export interface SecretEnvironmentEntry {
  readonly name: string;
  readonly secretId: string;
  readonly namespaceId: string;
  readonly agentId: string;
  readonly backendRef: unknown;
}

/** What OCC rebuilds on each pass and hands to prepare and activate. */
export interface ComputeRevisionContext {
  readonly harnessAuth: { readonly method: string; readonly [key: string]: unknown };
  /** Refused by SSH Compute when it has any entry. */
  readonly secretEnvironment: readonly SecretEnvironmentEntry[];
  /** OCC's WorkspaceSetup on an Agent's first deployment (and, completed, on later ones); see admission/workspace-setup.ts. */
  readonly workspaceSetup?: unknown;
  /** Refused by SSH Compute when it has any entry. */
  readonly repositoryCredentials?: readonly unknown[];
  /** Non-model credential sources resolved for this pass; refused by SSH Compute when it has any entry. */
  readonly credentialSources?: readonly unknown[];
}

/** `bindAgent` input: the authoritative Namespace and Agent. */
export interface ComputeAgentBinding {
  readonly namespace: Namespace;
  readonly agent: Agent;
}

export interface ComputeAgentRevisionBinding extends ComputeAgentBinding {
  readonly revision: Readonly<AgentRevision>;
}

export type NamespaceLifecycleFailure = 'retryable' | 'permanent';

export interface NamespaceEnsureResult {
  readonly namespaceId: string;
  readonly namespaceReady: boolean;
  readonly failure?: NamespaceLifecycleFailure;
  /** With `failure`: at most 256 characters of `[A-Za-z0-9 ._:/@-]`, secret-free; OCC only logs it. */
  readonly reason?: string;
}

export interface NamespaceDeleteResult {
  readonly namespaceId: string;
  readonly namespaceDeleted: boolean;
  readonly failure?: NamespaceLifecycleFailure;
}

/** Evidence of why a runtime is not ready, without output that could hold secrets. */
export interface RuntimeFailureEvidence {
  readonly component: string;
  readonly check: string;
  readonly checkedAt: string;
  readonly code: string;
  /** OCC's classified cause, only with code MODEL_PROBE_FAILED; this driver never reports one. */
  readonly cause?: { readonly kind: 'PROCESS_EXIT' | 'PROBE_STATUS' | 'INVALID_OUTPUT' | 'WRAPPER_ERROR'; readonly detail?: string };
}

export interface ComputeReadiness {
  readonly namespaceId: string;
  readonly agentId: string;
  readonly revisionId: string;
  readonly ready: boolean;
  readonly runtimeFailure?: RuntimeFailureEvidence;
}

export interface ComputePreflightWarning {
  readonly code: string;
  readonly message: string;
}

export interface ComputePreflightResult {
  readonly warnings: readonly ComputePreflightWarning[];
}

/** Where the CLI finds an Agent's gateway: loopback on its configured host. */
export interface GatewayAddress {
  /** The configured host the gateway runs on. */
  host: string;
  port: number;
  /** The gateway listens on the host's loopback only; reach it from the host or through a tunnel. */
  url: string;
}

/** Launch data a beforeWorkloadStart hook may fill with opaque placeholders. */
export interface WorkloadLaunchContext {
  environment: Record<string, string>;
}

/** Hooks another selected driver (Configuration, IAM) runs around SSH lifecycle steps. */
export interface ComputeLifecycleHooks {
  afterNamespacePrepared?(namespace: Namespace, signal: AbortSignal): Promise<void>;
  beforeWorkloadStart?(revision: AgentRevision, launch: WorkloadLaunchContext, signal: AbortSignal): Promise<void>;
  beforeWorkloadStop?(revision: AgentRevision, signal: AbortSignal): Promise<void>;
  beforeNamespaceDelete?(namespace: Namespace, signal: AbortSignal): Promise<void>;
}

/** A driver OCC selected, as it hands it to `setLifecycleDrivers`. */
export interface Driver {
  readonly id: string;
  readonly capability: string;
  readonly implementation: string;
  readonly computeLifecycleHooks?: ComputeLifecycleHooks;
}

/** A driver whose hooks the registry accepted. */
export interface LifecycleDriver extends Driver {
  readonly computeLifecycleHooks: ComputeLifecycleHooks;
}
