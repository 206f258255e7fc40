// The checks diagnose-deployment reports: each once, in the protocol's order, with a time and a fixed code.
import { ComputeError, DEPLOYMENT_CHECKS, type HostDeploymentCheck } from '@occ-ssh/protocol';

/** `component check`, as DEPLOYMENT_CHECKS names them; `host reachable` is the controller's. */
export type CheckName = Exclude<`${(typeof DEPLOYMENT_CHECKS)[number][0]} ${(typeof DEPLOYMENT_CHECKS)[number][1]}`, 'host reachable'>;

type Outcome = { state: HostDeploymentCheck['state']; code?: string };

export const passed = (code?: string): Outcome => ({ state: 'succeeded', ...(code ? { code } : {}) });
export const failed = (code: string): Outcome => ({ state: 'failed', code });
/** Made, but what it found cannot be vouched for (a bound was hit, a command did not answer). */
export const undecided = (code?: string): Outcome => ({ state: 'unknown', ...(code ? { code } : {}) });

export class DeploymentChecks {
  private readonly started = Date.now();
  private readonly made = new Map<CheckName, HostDeploymentCheck>();

  /** Records a check made now; a check never recorded is reported `unknown` with no time. */
  set(name: CheckName, outcome: Outcome): Outcome {
    const [component, check] = name.split(' ') as [string, string];
    this.made.set(name, { component, check, ...outcome, elapsedMs: Date.now() - this.started });
    return outcome;
  }

  result(): { durationMs: number; checks: HostDeploymentCheck[] } {
    const checks = DEPLOYMENT_CHECKS.filter(([component]) => component !== 'host').map(
      ([component, check]): HostDeploymentCheck => this.made.get(`${component} ${check}` as CheckName) ?? { component, check, state: 'unknown', elapsedMs: null },
    );
    return { durationMs: Date.now() - this.started, checks };
  }
}

/**
 * A marker read: its value, `missing`, or `invalid` when it is unreadable, malformed or names another
 * owner (the helper's reads throw an ownership ComputeError for each). Any other error is a bug and is thrown.
 */
export function readQuietly<T>(read: () => T | null): { value: T } | 'missing' | 'invalid' {
  try {
    const value = read();
    return value === null ? 'missing' : { value };
  } catch (error) {
    if (error instanceof ComputeError) return 'invalid';
    throw error;
  }
}
