// Several hosts failing at once, reported as one ComputeError that still names each host and cause.
import { ComputeError } from '@occ-ssh/protocol';

const describe = (host: string, error: ComputeError) => `${host}: ${error.code}${error.details.transportCause ? ` (${error.details.transportCause})` : ''}: ${error.message}`;

export class HostFailures extends ComputeError {
  /** Host name → its failure, in configuration order. */
  readonly failures: ReadonlyMap<string, ComputeError>;

  constructor(failures: ReadonlyMap<string, ComputeError>) {
    const all = [...failures.values()];
    // The verdict is the strictest one: a permanent failure anywhere makes the whole call permanent.
    const worst = all.find((e) => e.permanent) ?? all[0]!;
    super(worst.code, `${failures.size} host(s) failed:\n${[...failures].map(([host, error]) => `  ${describe(host, error)}`).join('\n')}`, { host: [...failures.keys()].join(',') });
    this.failures = failures;
  }
}

/** One failure as itself; several as HostFailures. */
export function combineHostFailures(failures: ReadonlyMap<string, ComputeError>): ComputeError | undefined {
  if (failures.size === 0) return undefined;
  return failures.size === 1 ? [...failures.values()][0]! : new HostFailures(failures);
}
