// AgentRevisions as OCC sends them, and the Installation for test hosts (built in test support),
// shared by the benchmark and the chaos campaign, so both drive the driver exactly as OCC would.
import type { AgentRevision, ComputeAgentBinding } from '@occ-ssh/controller';

/** An AgentRevision as OCC sends it, for this driver, with the given OpenClaw configuration. */
export function occRevision(binding: ComputeAgentBinding, number: number, configuration: Record<string, unknown>): AgentRevision {
  return {
    id: `rev-${binding.agent.id}-${number}`,
    revision: number,
    namespaceId: binding.namespace.id,
    agentId: binding.agent.id,
    servicePrincipalId: binding.agent.servicePrincipalId,
    harness: { id: 'openclaw', version: '1.0.0', mode: 'embedded' },
    compute: { id: 'compute-ssh', implementation: 'occ/ssh' },
    harnessAuth: { method: 'runtime' },
    configuration: configuration as AgentRevision['configuration'],
  };
}

export { TEST_RUNTIME, testHostInstallationYaml, type InstallationHost, type TestHostInstallationOptions } from '@occ-ssh/test-support';
