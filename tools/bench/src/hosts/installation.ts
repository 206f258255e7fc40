// Installations, drivers and OCC resources for benchmark hosts: a real SshComputeDriver per
// transport, with a logger that keeps each `operation succeeded` line's timings.
import { readFileSync, writeFileSync } from 'node:fs';
import {
  createLogger,
  loadInstallationConfiguration,
  SshComputeDriver,
  type ComputeAgentBinding as AgentBinding,
  type AgentRevision,
  type CommandExecutor,
  type SshComputeConfiguration,
} from '@occ-ssh/controller';
import { lineSink } from '@occ-ssh/test-support';
import { occRevision, TEST_RUNTIME, testHostInstallationYaml, type InstallationHost, type TestHostInstallationOptions } from '@occ-ssh/occ-fixtures';

export { occRevision };

export const TRANSPORTS = ['system-ssh', 'openssh-mux', 'ssh2'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const RUNTIME_ROOT = TEST_RUNTIME.root;
export const UNIT_DIRECTORY = TEST_RUNTIME.systemdUnitDirectory;

/** The connection facts of a booted test host (a TestHost satisfies it). */
export interface BenchHost extends InstallationHost {
  name: string;
}

/** Writes one known_hosts file with every host's entry, for an Installation that spans them. */
export function mergedKnownHosts(hosts: readonly BenchHost[], path: string): string {
  writeFileSync(path, hosts.map((host) => readFileSync(host.knownHostsFile, 'utf8').trim()).join('\n') + '\n', { mode: 0o600 });
  return path;
}

export function configurationFor(hosts: Record<string, BenchHost>, options: TestHostInstallationOptions): SshComputeConfiguration {
  return loadInstallationConfiguration({ text: testHostInstallationYaml(hosts, options) });
}

/** What the driver logs after each helper call (`operation succeeded` / `operation failed`). */
export interface OperationEvent {
  msg: string;
  operation: string;
  host: string;
  agent?: string;
  revision?: string;
  durationMs: number;
  timings?: { totalMs: number; lockWaitMs?: number; lockHoldMs?: number };
  code?: string;
  reason?: string;
}

/** A driver with its log lines kept as structured events. */
export class ObservedDriver {
  readonly driver: SshComputeDriver;
  readonly events: OperationEvent[] = [];

  constructor(
    readonly configuration: SshComputeConfiguration,
    options: { executor?: CommandExecutor; readinessTimeoutMs?: number } = {},
  ) {
    const events = this.events;
    const logger = createLogger(
      { level: 'info' },
      lineSink((line) => {
        const entry = JSON.parse(line) as Partial<OperationEvent>;
        if (typeof entry.operation === 'string' && typeof entry.durationMs === 'number') events.push(entry as OperationEvent);
      }),
    );
    this.driver = new SshComputeDriver({
      configuration,
      logger,
      readinessTimeoutMs: options.readinessTimeoutMs ?? 30_000,
      ...(options.executor ? { executor: options.executor } : {}),
    });
  }

  get transport(): Transport {
    return this.configuration.transport;
  }

  /** The newest event for an operation (optionally of one revision), failing loudly if the driver logged a failure. */
  last(operation: string, revisionId?: string): OperationEvent {
    for (let i = this.events.length - 1; i >= 0; i -= 1) {
      const event = this.events[i]!;
      if (event.operation !== operation || (revisionId !== undefined && event.revision !== revisionId)) continue;
      if (event.msg !== 'operation succeeded') throw new Error(`${operation} failed: ${event.code ?? ''} ${event.reason ?? ''}`);
      return event;
    }
    throw new Error(`no ${operation} event logged`);
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}

/** A Namespace, Agent and ServicePrincipal triple; the Namespace name selects the host. */
export function bindingFor(namespaceName: string, agentTag: string): AgentBinding {
  const namespaceId = `ns-bench-${namespaceName}`;
  return {
    namespace: { id: namespaceId, name: namespaceName },
    agent: { id: `agent-${agentTag}`, namespaceId, servicePrincipalId: `sp-${agentTag}` },
  };
}

/** A revision whose fixture gateway becomes ready `readyAfterMs` after it starts. */
export function revisionFor(binding: AgentBinding, number: number, readyAfterMs: number): AgentRevision {
  return occRevision(binding, number, { gateway: { mode: 'local', bind: 'loopback' }, fixtureGateway: { readyAfterMs } });
}

/** Milliseconds an async action takes, by the monotonic clock. */
export async function timed<T>(action: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await action();
  return { ms: performance.now() - started, value };
}
