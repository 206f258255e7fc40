// Builds the OCC resources a command acts on from a revision JSON file and flags.
import { readFileSync } from 'node:fs';
import { ComputeError, DRIVER_ID, DRIVER_IMPLEMENTATION } from '@occ-ssh/protocol';
import type { AgentRevision, ComputeAgentBinding, Namespace } from '../types.js';
import { UsageError, type CliOptions } from './args.js';

/** OCC's field names; `servicePrincipal.id` and `number` are still read for older files. */
interface RevisionFile {
  namespace?: Partial<Namespace>;
  agent?: Partial<ComputeAgentBinding['agent']> & { servicePrincipal?: { id?: string } };
  revision?: Partial<AgentRevision> & { number?: number };
}

function readRevisionFile(path: string | undefined): RevisionFile {
  if (!path) return {};
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
    return value as RevisionFile;
  } catch {
    throw new ComputeError('configuration', `--revision ${path}: expected a readable JSON object { namespace, agent, revision }`, { path });
  }
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined || value === null || value === '') throw new UsageError(`${what} is required (in the --revision file or as a flag)`);
  return value;
}

export function namespaceFrom(options: CliOptions): Namespace {
  const file = readRevisionFile(options.revision);
  return {
    id: required(options.namespaceId ?? file.namespace?.id, 'namespace id (--namespace-id)'),
    name: required(options.namespace ?? file.namespace?.name, 'namespace name (--namespace)'),
  };
}

/** OCC's Harness object; an older file's "openclaw/embedded" string (or none) means OpenClaw embedded. */
function harnessFrom(harness: unknown): AgentRevision['harness'] {
  if (harness === undefined || harness === 'openclaw/embedded') return { id: 'openclaw', version: 'unknown', mode: 'embedded' };
  return harness as AgentRevision['harness'];
}

/** The Namespace and Agent alone, from the file and flags: what Agent deletion needs. */
export function bindingFrom(options: CliOptions): ComputeAgentBinding {
  const file = readRevisionFile(options.revision);
  const namespace = namespaceFrom(options);
  const agent = {
    id: required(options.agentId ?? file.agent?.id, 'agent id (--agent-id)'),
    namespaceId: namespace.id,
    servicePrincipalId: required(options.servicePrincipalId ?? file.agent?.servicePrincipalId ?? file.agent?.servicePrincipal?.id, 'service principal id (--service-principal-id)'),
    ...(file.agent?.pluginApprovers === undefined ? {} : { pluginApprovers: file.agent.pluginApprovers }),
  };
  return { namespace, agent };
}

export function resourcesFrom(options: CliOptions): { binding: ComputeAgentBinding; revision: AgentRevision } {
  const file = readRevisionFile(options.revision);
  const { namespace, agent } = bindingFrom(options);
  const { id: agentId, servicePrincipalId } = agent;
  const { number, ...base } = file.revision ?? {};
  const revision: AgentRevision = {
    ...base,
    id: required(options.revisionId ?? base.id, 'revision id (--revision-id)'),
    revision: required(options.revisionNumber ?? base.revision ?? number, 'revision number (--revision-number)'),
    namespaceId: namespace.id,
    agentId,
    servicePrincipalId,
    harness: harnessFrom(base.harness),
    compute: base.compute ?? { id: DRIVER_ID, implementation: DRIVER_IMPLEMENTATION },
    harnessAuth: base.harnessAuth ?? { method: 'runtime' },
    configuration: base.configuration ?? {},
  };
  return { binding: { namespace, agent }, revision };
}
