// Builds the OCC resources a command acts on from a revision JSON file and flags.
import { readFileSync } from 'node:fs';
import { ComputeError } from '@occ-ssh/protocol';
import type { AgentBinding, AgentRevision, NamespaceResource } from '../types.js';
import { UsageError, type CliOptions } from './args.js';

interface RevisionFile {
  namespace?: Partial<NamespaceResource>;
  agent?: { id?: string; servicePrincipal?: { id?: string }; defaultPluginApprovers?: string[] | null };
  revision?: Partial<AgentRevision>;
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

export function namespaceFrom(options: CliOptions): NamespaceResource {
  const file = readRevisionFile(options.revision);
  return {
    id: required(options.namespaceId ?? file.namespace?.id, 'namespace id (--namespace-id)'),
    name: required(options.namespace ?? file.namespace?.name, 'namespace name (--namespace)'),
  };
}

export function resourcesFrom(options: CliOptions): { binding: AgentBinding; revision: AgentRevision } {
  const file = readRevisionFile(options.revision);
  const namespace = namespaceFrom(options);
  const agentId = required(options.agentId ?? file.agent?.id, 'agent id (--agent-id)');
  const agent = {
    id: agentId,
    namespaceId: namespace.id,
    servicePrincipal: { id: required(options.servicePrincipalId ?? file.agent?.servicePrincipal?.id, 'service principal id (--service-principal-id)') },
    ...(file.agent?.defaultPluginApprovers === undefined ? {} : { defaultPluginApprovers: file.agent.defaultPluginApprovers }),
  };
  const base = file.revision ?? {};
  const revision: AgentRevision = {
    ...base,
    id: required(options.revisionId ?? base.id, 'revision id (--revision-id)'),
    number: required(options.revisionNumber ?? base.number, 'revision number (--revision-number)'),
    namespaceId: namespace.id,
    agentId,
    harness: base.harness ?? 'openclaw/embedded',
    harnessAuth: base.harnessAuth ?? { method: 'runtime' },
    configuration: base.configuration ?? {},
  };
  return { binding: { namespace, agent }, revision };
}
