// diagnoseAgentDeployment: the helper's diagnose-deployment checks in OCC's AgentDeploymentDiagnostics
// shape, every time on the controller's clock (a host's clock may be off; OCC compares them with its own).
import { DEPLOYMENT_CHECKS, toComputeError, type ErrorCode, type OperationResult } from '@occ-ssh/protocol';
import type { AgentDeploymentDiagnostics, DeploymentCheck } from './public-types.js';

type HostAnswer = OperationResult<'diagnose-deployment'>;

/**
 * Failures that mean the host was not reached: the answer then says so in `host reachable` (failed,
 * with this code) and leaves every other check `unknown` with no time, as OCC's own drivers report a
 * runtime they cannot see. Any other failure (an unbound or unmapped Agent, a helper that refused the
 * call) is thrown as the classified ComputeError it is.
 */
const UNREACHED: Partial<Record<ErrorCode, string>> = { transport: 'HOST_UNREACHABLE', timeout: 'HOST_TIMEOUT' };

/** Runs the host call and maps its answer, or its failure to reach the host, to OCC's shape. */
export async function diagnoseDeployment(revisionId: string, ask: () => Promise<{ result: HostAnswer }>): Promise<AgentDeploymentDiagnostics> {
  try {
    const { result } = await ask();
    return fromHost(revisionId, result, new Date());
  } catch (error) {
    const failure = toComputeError(error);
    const code = UNREACHED[failure.code];
    if (code === undefined) throw failure;
    return unreached(revisionId, code, new Date());
  }
}

/** Each check's time is `observed` less the time the helper still ran after making it. */
export function fromHost(revisionId: string, answer: HostAnswer, observed: Date): AgentDeploymentDiagnostics {
  const observedAt = observed.toISOString();
  const at = (elapsedMs: number | null) => (elapsedMs === null ? null : new Date(observed.getTime() - Math.max(0, answer.durationMs - elapsedMs)).toISOString());
  const checks: DeploymentCheck[] = [{ component: 'host', check: 'reachable', state: 'succeeded', checkedAt: observedAt }];
  for (const { component, check, state, elapsedMs, code } of answer.checks) checks.push({ component, check, state, checkedAt: at(elapsedMs), ...(code === undefined ? {} : { code }) });
  return { revisionId, observedAt, checks };
}

function unreached(revisionId: string, code: string, observed: Date): AgentDeploymentDiagnostics {
  const observedAt = observed.toISOString();
  return {
    revisionId,
    observedAt,
    checks: DEPLOYMENT_CHECKS.map(([component, check]): DeploymentCheck =>
      component === 'host' ? { component, check, state: 'failed', checkedAt: observedAt, code } : { component, check, state: 'unknown', checkedAt: null },
    ),
  };
}
