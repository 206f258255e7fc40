// Workspace setup admission: OCC's WorkspaceSetup for exactly this revision's Agent, with the documents OCC's
// own normalization would accept, in a workspace the driver manages. Refused permanently before any host.
import { ComputeError, ID_PATTERN, isWorkspaceFileName, workspaceContentProblem, WORKSPACE_FILE_NAMES, type OperationArgs } from '@occ-ssh/protocol';
import type { AgentRevision } from '../types.js';

export type AdmittedWorkspaceSetup = OperationArgs<'setup-workspace'>['setup'];

const KEY = 'context.workspaceSetup';
const FIELDS = new Set(['id', 'namespaceId', 'agentId', 'defaultsId', 'files', 'completed']);

function refuse(key: string, reason: string): never {
  throw new ComputeError('admission', `${key}: ${reason}`, { key });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A name or field as it may appear in an error: printable and short, never a document's content. */
function printable(value: unknown): string {
  return String(value)
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 40);
}

/** The documents in OCC's order; every name and content is checked before any is kept. */
function admitFiles(files: unknown): AdmittedWorkspaceSetup['documents'] {
  if (files === undefined) return [];
  if (!isPlainObject(files)) refuse(`${KEY}.files`, `expected an object of documents by name (${WORKSPACE_FILE_NAMES.join(', ')})`);
  for (const [name, content] of Object.entries(files)) {
    if (!isWorkspaceFileName(name)) refuse(`${KEY}.files`, `"${printable(name)}" is not a workspace document; only ${WORKSPACE_FILE_NAMES.join(', ')} are accepted`);
    const problem = workspaceContentProblem(content);
    // Security: the reason names the rule broken, never the content.
    if (problem) refuse(`${KEY}.files.${name}`, problem);
  }
  return WORKSPACE_FILE_NAMES.filter((name) => files[name] !== undefined).map((name) => ({ name, content: files[name] as string }));
}

/**
 * Security: the documents are delivered only into the workspace the driver manages
 * (<agentDir>/state/workspace); a configured workspace elsewhere would make the delivery write outside it.
 */
function refuseOtherWorkspace(revision: AgentRevision): void {
  const agents = isPlainObject(revision.configuration) ? revision.configuration['agents'] : undefined;
  if (!isPlainObject(agents)) return;
  const reason = 'workspace setup delivers only into the workspace SSH Compute manages (<agentDir>/state/workspace); remove the setting';
  if (isPlainObject(agents['defaults']) && agents['defaults']['workspace'] !== undefined) refuse('configuration.agents.defaults.workspace', reason);
  const list = Array.isArray(agents['list']) ? agents['list'] : [];
  list.forEach((entry, index) => {
    if (isPlainObject(entry) && entry['workspace'] !== undefined) refuse(`configuration.agents.list[${index}].workspace`, reason);
  });
}

/** OCC's `context.workspaceSetup` for `revision`, as the helper's operation carries it; undefined when there is none. */
export function admitWorkspaceSetup(value: unknown, revision: AgentRevision): AdmittedWorkspaceSetup | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) refuse(KEY, "expected OCC's WorkspaceSetup { id, namespaceId, agentId, defaultsId?, files?, completed }");
  for (const field of Object.keys(value)) if (!FIELDS.has(field)) refuse(`${KEY}.${printable(field)}`, 'is not a WorkspaceSetup field SSH Compute knows');
  const { id, namespaceId, agentId, defaultsId, completed } = value;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) refuse(`${KEY}.id`, 'expected 1-128 characters of letters, digits and . _ : @ - starting with a letter or digit');
  // Security: a setup staged for another Agent is never delivered into this one's workspace.
  if (namespaceId !== revision.namespaceId) refuse(`${KEY}.namespaceId`, `the setup belongs to another Namespace than revision ${printable(revision.id)}`);
  if (agentId !== revision.agentId) refuse(`${KEY}.agentId`, `the setup belongs to another Agent than revision ${printable(revision.id)}`);
  if (defaultsId !== undefined && (typeof defaultsId !== 'string' || !/^[a-f0-9]{64}$/.test(defaultsId))) refuse(`${KEY}.defaultsId`, 'expected a SHA-256 hex digest');
  if (typeof completed !== 'boolean') refuse(`${KEY}.completed`, 'expected a boolean');
  const documents = admitFiles(value['files']);
  refuseOtherWorkspace(revision);
  return { id, ...(defaultsId !== undefined ? { defaultsId } : {}), completed, documents };
}
