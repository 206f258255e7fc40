// Revision admission: SSH Compute runs only embedded OpenClaw with runtime-supplied credentials, and
// refuses everything it cannot honour, keyed to the fields OCC really sends.
import { ComputeError } from '@occ-ssh/protocol';
import type { Agent, AgentRevision, ComputeIdentity, ComputeRevisionContext } from '../types.js';

/** The Harness SSH Compute runs: OpenClaw's id, in embedded mode. */
export const SUPPORTED_HARNESS = Object.freeze({ id: 'openclaw', mode: 'embedded' });

const CREDENTIAL_SOURCES = 'non-model credential sources need a Credential Gateway and a Sandbox; SSH Compute cannot attach them (clear them before deploying)';
const ENV_FILE_HINT = 'provision credentials in the operator env file <agentDir>/env on the host and reference them with env SecretRefs';

function refuse(key: string, reason: string): never {
  throw new ComputeError('admission', `${key}: ${reason}`, { key });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `value` holds anything: entries of a map or a list, or any other present value. */
function hasEntries(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return true;
}

function printable(value: unknown): string {
  return String(value)
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 60);
}

/** The Harness must be OpenClaw in embedded mode; dedicated execution (Codex included) needs Kubernetes Compute. */
function checkHarness(harness: unknown): void {
  if (!isPlainObject(harness)) refuse('harness', "expected OCC's Harness descriptor { id, version, mode }");
  if (harness.id !== SUPPORTED_HARNESS.id) {
    refuse('harness.id', `"${printable(harness.id)}" is not supported by SSH Compute; it runs only OpenClaw (use Kubernetes Compute for other Harnesses)`);
  }
  if (harness.mode !== SUPPORTED_HARNESS.mode) {
    refuse('harness.mode', `"${printable(harness.mode)}" is not supported by SSH Compute; it runs OpenClaw only in embedded mode (dedicated execution needs Kubernetes Compute)`);
  }
  if (typeof harness.version !== 'string' || harness.version === '') refuse('harness.version', 'expected a nonempty string');
}

/** Only `{ "method": "runtime" }`: managed credentials, OCC Secret-backed keys and ChatGPT accounts need Kubernetes Compute. */
function checkHarnessAuth(auth: unknown, key = 'harnessAuth'): void {
  const keys = isPlainObject(auth) ? Object.keys(auth) : [];
  if (!isPlainObject(auth) || keys.length !== 1 || keys[0] !== 'method' || auth.method !== 'runtime') {
    refuse(key, 'SSH Compute accepts only { "method": "runtime" }: managed credentials, OCC Secret-backed keys and ChatGPT accounts need Kubernetes Compute');
  }
}

/** OCC Secret delivery is unsupported: any binding is refused, whatever its shape. */
function checkSecretBindings(secretBindings: unknown, key = 'secretBindings'): void {
  if (hasEntries(secretBindings)) refuse(key, `OCC Secret bindings are not supported by SSH Compute; ${ENV_FILE_HINT}`);
}

/**
 * What OCC's deploy admission asks: the Harness, its auth, the Secret bindings it would deliver and,
 * for a `credential_source` binding, the source's catalogue type (OCC's 5th argument).
 */
export function validateHarnessAuth(harness: unknown, auth: unknown, secretBindings?: unknown, credentialSourceType?: unknown): void {
  checkHarness(harness);
  checkHarnessAuth(auth);
  checkSecretBindings(secretBindings);
  // OCC passes a type only for a credential_source binding, which checkHarnessAuth refuses; one sent beside runtime auth is refused too.
  if (credentialSourceType !== undefined) refuse('credentialSourceType', 'credential sources need a Credential Gateway and a Sandbox; SSH Compute cannot deliver them');
}

/** `<name>@<version>` as OCC records an external package: the name (scoped ones start with '@'), or undefined when it is not that form. */
function packageOf(implementation: unknown): string | undefined {
  if (typeof implementation !== 'string') return undefined;
  const at = implementation.lastIndexOf('@');
  if (at <= 0) return undefined;
  const version = implementation.slice(at + 1);
  return /^[0-9A-Za-z][0-9A-Za-z.+-]*$/.test(version) ? implementation.slice(0, at) : undefined;
}

/**
 * `deploy` (prepare, activate): only this exact implementation. `teardown` (stop, retire, deactivate,
 * gateway address): also this same package at another version, so an upgraded driver retires what the
 * previous version deployed. OCC's worker never asks for deploy work across versions.
 */
export type IdentityUse = 'deploy' | 'teardown';

function sameCompute(compute: Record<string, unknown>, driver: ComputeIdentity, use: IdentityUse): boolean {
  if (compute.id !== driver.id) return false;
  if (compute.implementation === driver.implementation) return true;
  const ours = packageOf(driver.implementation);
  return use === 'teardown' && ours !== undefined && packageOf(compute.implementation) === ours;
}

/** Every revision operation: the revision names this driver's Compute identity and the bound Agent's ServicePrincipal. */
export function checkRevisionIdentity(revision: AgentRevision, agent: Agent, driver: ComputeIdentity, use: IdentityUse = 'deploy'): void {
  const compute: unknown = revision.compute;
  // Security: another driver's revision (another id or package) is never touched, whatever its Agent.
  if (!isPlainObject(compute) || !sameCompute(compute, driver, use)) {
    refuse('compute', `revision ${printable(revision.id)} was admitted for another Compute driver; this driver is ${driver.id} (${driver.implementation})`);
  }
  if (revision.servicePrincipalId !== agent.servicePrincipalId) refuse('servicePrincipalId', `does not match the ServicePrincipal bound to Agent ${agent.id}`);
}

/** Everything SSH Compute refuses about a revision (and its Agent) before any host is touched. */
export function admitRevision(revision: AgentRevision, agent: Agent, driver: ComputeIdentity): void {
  checkRevisionIdentity(revision, agent, driver);
  validateHarnessAuth(revision.harness, revision.harnessAuth, revision.secretBindings);
  if (revision.sandboxDriverId !== undefined) refuse('sandboxDriverId', 'SSH Compute does not compose with a Sandbox driver');
  if (revision.plugins !== undefined && (!isPlainObject(revision.plugins) || hasEntries(revision.plugins.plugins))) {
    refuse('plugins', 'a nonempty requested plugin map is not supported by SSH Compute; clear it before deploying');
  }
  for (const [key, value] of [
    ['pluginApprovers', revision.pluginApprovers],
    ['agent.pluginApprovers', agent.pluginApprovers],
  ] as const) {
    if (value !== undefined) refuse(key, 'a default plugin approver policy (even an empty list) is not supported by SSH Compute; clear it before deploying');
  }
  if (revision.repositoryCredentials !== undefined) refuse('repositoryCredentials', 'repository credentials cannot be delivered to an SSH host');
  if (hasEntries(revision.credentialSources)) refuse('credentialSources', CREDENTIAL_SOURCES);
}

/** The per-pass context: runtime auth only, no Secret environment, no repository material (the workspace setup is admitted by workspace-setup.ts). */
export function admitContext(context: ComputeRevisionContext | undefined): void {
  if (context === undefined) return;
  if (!isPlainObject(context)) refuse('context', "expected OCC's revision context object");
  if (context.harnessAuth !== undefined) checkHarnessAuth(context.harnessAuth, 'context.harnessAuth');
  if (hasEntries(context.secretEnvironment)) refuse('context.secretEnvironment', `OCC Secret delivery is not supported by SSH Compute; ${ENV_FILE_HINT}`);
  if (hasEntries(context.repositoryCredentials)) refuse('context.repositoryCredentials', 'repository credentials cannot be delivered to an SSH host');
  if (hasEntries(context.credentialSources)) refuse('context.credentialSources', CREDENTIAL_SOURCES);
}
