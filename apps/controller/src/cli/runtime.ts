// What OCC's runtime view shows, for the CLI: the same driver methods (describeAgentRuntime,
// readAgentRuntimeLogs) and the same mapping, printed as lines an operator reads.
import { ComputeError, MAX_LOG_BYTES } from '@occ-ssh/protocol';
import type { SshComputeDriver } from '../driver.js';
import type { AgentRuntimeDescription, AgentRuntimeLogChunk } from '../runtime-types.js';
import type { AgentRevision, ComputeAgentBinding, ComputeAgentRevisionBinding } from '../types.js';
import { neutralise } from './journal-text.js';

/** The revision as OCC would pass it to the runtime reads: the identity fields they check, for this driver. */
export function runtimeBinding(driver: SshComputeDriver, binding: ComputeAgentBinding, revision: { id: string; number: number }): ComputeAgentRevisionBinding {
  const admitted: AgentRevision = {
    id: revision.id,
    revision: revision.number,
    namespaceId: binding.namespace.id,
    agentId: binding.agent.id,
    servicePrincipalId: binding.agent.servicePrincipalId,
    harness: { id: 'openclaw', version: 'unknown', mode: 'embedded' },
    compute: { id: driver.id, implementation: driver.implementation },
    harnessAuth: { method: 'runtime' },
    configuration: {},
  };
  return { ...binding, revision: admitted };
}

/** The pod's previous gateway process, as OCC's runtime logs read it: describe first, then that pod's page. */
export async function previousInstance(driver: SshComputeDriver, target: ComputeAgentRevisionBinding, lines: number, signal: AbortSignal): Promise<AgentRuntimeLogChunk> {
  const description = await driver.describeAgentRuntime(target, signal, { events: false });
  const pod = description.sources[0]?.pods[0];
  if (!pod) throw new ComputeError('admission', `revision ${target.revision.id} has no pod on the host (NO_POD): its gateway unit does not run it`);
  return driver.readAgentRuntimeLogs(target, { source: 'gateway', pod: pod.name, podUid: pod.uid, container: pod.container, previous: true, tailLines: lines, limitBytes: MAX_LOG_BYTES, signal });
}

/** One Agent's runtime view as status lines: the pod, its container and its events, or why there is none. */
export function describeRuntime(description: AgentRuntimeDescription): string[] {
  const [pod] = description.pods;
  const source = description.sources[0];
  if (!pod) return [`        runtime: no pod for ${description.revisionId} (${source?.unavailableCode ?? 'NO_POD'}); logs: ${source?.retention ?? '-'}`];
  const container = pod.containers[0]!;
  const end = container.lastTermination;
  const lines = [
    `        runtime: pod ${pod.uid} ${pod.phase}${pod.ready ? ', ready' : ''}; gateway ${container.state}${container.reason ? ` (${container.reason})` : ''}, restarts ${container.restartCount}, started ${container.startedAt ?? '-'}`,
    `        last termination: ${end ? `${end.reason ?? '-'} (exit code ${end.exitCode ?? '-'}) at ${end.finishedAt ?? '-'}` : '-'}`,
  ];
  for (const event of pod.events) lines.push(`        event ${event.lastObservedAt ?? '-'} ${event.type} ${event.reason}${event.count > 1 ? ` x${event.count}` : ''}: ${neutralise(event.message)}`);
  lines.push(`        logs: ${source?.retention ?? '-'}`);
  return lines;
}
