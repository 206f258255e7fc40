// The OCC resources the driver receives, described in the driver's own terms.

/** A Namespace as OCC owns it; its exact `name` selects the host in the Installation. */
export interface NamespaceResource {
  id: string;
  name: string;
}

/** The identity an Agent's workload acts as. */
export interface ServicePrincipalResource {
  id: string;
}

/** An Agent as OCC owns it, with the plugin policy SSH Compute must see cleared. */
export interface AgentResource {
  id: string;
  namespaceId: string;
  servicePrincipal: ServicePrincipalResource;
  /** Default plugin approver policy; SSH Compute refuses any, including an empty list. */
  defaultPluginApprovers?: readonly string[] | null;
}

/** Harness authentication recorded in a revision; SSH accepts only `{ method: "runtime" }`. */
export interface HarnessAuth {
  method: string;
  [key: string]: unknown;
}

/** One admitted AgentRevision: an immutable, numbered configuration of an Agent. */
export interface AgentRevision {
  id: string;
  number: number;
  namespaceId: string;
  agentId: string;
  harness: string;
  harnessAuth: HarnessAuth;
  /** The native OpenClaw configuration document (openclaw.json) as admitted by OCC. */
  configuration: Record<string, unknown>;
  /** OCC Secret bindings; SSH Compute refuses any. */
  secretBindings?: readonly unknown[] | null;
  /** Requested plugins; SSH Compute refuses a nonempty map. */
  plugins?: Record<string, unknown> | null;
  /** A Sandbox request; SSH Compute does not compose with Sandbox. */
  sandbox?: unknown;
  /** Dedicated execution topology; SSH supports only the embedded one. */
  dedicated?: boolean;
}

/** `bindAgent` input: the authoritative Namespace and Agent (with its ServicePrincipal). */
export interface AgentBinding {
  namespace: NamespaceResource;
  agent: AgentResource;
}

export type Failure = 'retryable' | 'permanent';

export interface NamespaceReadyResult {
  namespaceId: string;
  namespaceReady: boolean;
  failure?: Failure;
}

export interface NamespaceDeletedResult {
  namespaceId: string;
  namespaceDeleted: boolean;
  failure?: Failure;
}

export interface PrepareResult {
  namespaceId: string;
  agentId: string;
  revisionId: string;
  ready: boolean;
}

/** Optional per-call context OCC passes; the driver uses only its abort signal. */
export interface OperationContext {
  signal?: AbortSignal;
}

export interface PreflightWarning {
  code: string;
  message: string;
}

export interface GatewayEndpoint {
  /** The configured host the gateway runs on. */
  host: string;
  port: number;
  /** The gateway listens on the host's loopback only; reach it from the host or through a tunnel. */
  url: string;
}

/** Launch data a beforeWorkloadStart hook may fill with opaque placeholders. */
export interface WorkloadLaunch {
  environment: Record<string, string>;
}

/** Hooks another selected driver (Configuration, IAM) runs around SSH lifecycle steps. */
export interface LifecycleHooks {
  afterNamespacePrepared?(namespace: NamespaceResource, signal: AbortSignal): Promise<void>;
  beforeWorkloadStart?(revision: AgentRevision, launch: WorkloadLaunch, signal: AbortSignal): Promise<void>;
  beforeWorkloadStop?(revision: AgentRevision, signal: AbortSignal): Promise<void>;
  beforeNamespaceDelete?(namespace: NamespaceResource, signal: AbortSignal): Promise<void>;
}

/** A selected driver that owns lifecycle hooks. */
export interface LifecycleDriver {
  id: string;
  capability: 'configuration' | 'iam';
  lifecycle: LifecycleHooks;
}
