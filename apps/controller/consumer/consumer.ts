// Type-checked in the consumer project: the installed package against OCC's contract.
import * as driverPackage from '@occ-ssh/compute-driver';
import { createDriver, type SshComputeDriver } from '@occ-ssh/compute-driver';
import type { AgentDeploymentDiagnostics, AgentRevision, ComputeAgentRevisionBinding, ComputeDriver, ComputeReadiness, DriverPackageModule, Namespace } from './occ-contract.js';

export const loaded: DriverPackageModule = driverPackage;

export const driver: ComputeDriver = createDriver({
  id: 'compute-ssh',
  implementation: '@occ-ssh/compute-driver@0.0.0',
  configuration: {},
  getOperationAbortSignal: () => undefined,
});

export async function pass(namespace: Namespace, revision: AgentRevision): Promise<ComputeReadiness> {
  await driver.ensureNamespace(namespace);
  return driver.prepareRevision(revision, { harnessAuth: { method: 'runtime' }, secretEnvironment: [] });
}

// The package's own types stay usable by a consumer that wants the richer class.
export const own: SshComputeDriver = createDriver({ id: 'x', implementation: 'y', configuration: {} });

// OCC's optional runtime diagnostics, called with OCC's exact types.
export function diagnose(binding: ComputeAgentRevisionBinding): Promise<AgentDeploymentDiagnostics> {
  return own.diagnoseAgentDeployment(binding);
}

// OCC's runtime routes (the console's Logs tab, `occ agent runtime|logs`) answer 501 without these
// optional members, and its deployment diagnostics answer "dependency unavailable": with them
// required here, a missing or drifted one fails this check.
export const runtimeView: Required<Pick<ComputeDriver, 'describeAgentRuntime' | 'readAgentRuntimeLogs' | 'runtimeLogging' | 'diagnoseAgentDeployment'>> = createDriver({
  id: 'compute-ssh',
  implementation: '@occ-ssh/compute-driver@0.0.0',
  configuration: {},
});
