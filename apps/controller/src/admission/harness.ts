// Harness admission: SSH Compute runs only embedded OpenClaw with runtime-supplied credentials.
import { ComputeError } from '@occ-ssh/protocol';
import type { AgentResource, AgentRevision, HarnessAuth } from '../types.js';

export const SUPPORTED_HARNESS = 'openclaw/embedded';

/** Refuses managed credentials and dedicated Harnesses; only `{ "method": "runtime" }` passes. */
export function validateHarnessAuth(harness: string, auth: HarnessAuth | null | undefined): void {
  if (harness !== SUPPORTED_HARNESS) {
    throw new ComputeError('admission', `harness "${printable(harness)}" is not supported by SSH Compute; use ${SUPPORTED_HARNESS} or Kubernetes Compute`, { key: 'harness' });
  }
  const keys = auth && typeof auth === 'object' ? Object.keys(auth) : [];
  if (!auth || keys.length !== 1 || keys[0] !== 'method' || auth.method !== 'runtime') {
    throw new ComputeError(
      'admission',
      'SSH Compute accepts only harnessAuth { "method": "runtime" }: managed credentials, OCC Secret-backed keys and ChatGPT accounts need Kubernetes Compute',
      { key: 'harnessAuth' },
    );
  }
}

/** Everything SSH Compute refuses about a revision before any host is touched. */
export function admitRevision(revision: AgentRevision, agent: AgentResource): void {
  validateHarnessAuth(revision.harness, revision.harnessAuth);
  if (revision.dedicated) throw new ComputeError('admission', 'dedicated execution is not supported by SSH Compute', { key: 'dedicated' });
  if (revision.secretBindings && revision.secretBindings.length > 0) {
    throw new ComputeError('admission', 'OCC Secret bindings are not supported by SSH Compute; provision credentials in the host env file', { key: 'secretBindings' });
  }
  if (revision.sandbox !== undefined && revision.sandbox !== null) {
    throw new ComputeError('admission', 'SSH Compute does not compose with Sandbox', { key: 'sandbox' });
  }
  if (revision.plugins && Object.keys(revision.plugins).length > 0) {
    throw new ComputeError('admission', 'a nonempty requested plugin map is not supported by SSH Compute; clear it before deploying', { key: 'plugins' });
  }
  if (agent.defaultPluginApprovers !== undefined && agent.defaultPluginApprovers !== null) {
    throw new ComputeError('admission', 'an Agent default plugin approver policy (even an empty list) is not supported by SSH Compute; clear it before deploying', {
      key: 'defaultPluginApprovers',
    });
  }
}

function printable(value: unknown): string {
  return String(value).replace(/[^\x20-\x7e]/g, '?').slice(0, 60);
}
