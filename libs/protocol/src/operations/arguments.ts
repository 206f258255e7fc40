// Each operation's wire arguments, built in one place from OCC's resources. The controller's driver
// methods and its plans both call these, so a plan is asked with exactly the real call's arguments.
// The inputs keep OCC's field names (Namespace, Agent, AgentRevision); the outputs are the table's.
import type * as z from 'zod/mini';
import type { AgentOwner, RevisionIdentity } from '../identity.js';
import type { activateRevisionOperation } from './activate-revision.js';
import type { deleteAgentOperation } from './delete-agent.js';
import type { ensureNamespaceOperation } from './ensure-namespace.js';
import type { prepareRevisionOperation } from './prepare-revision.js';
import type { readLogsOperation } from './read-logs.js';
import type { setupWorkspaceOperation } from './setup-workspace.js';
import type { verifyRevisionOperation } from './verify-revision.js';

type Args<T extends { args: z.ZodMiniType }> = z.infer<T['args']>;

/** OCC's Namespace, as far as a host names it. */
export interface NamespaceResource {
  readonly id: string;
  readonly name: string;
}

/** OCC's Agent, as far as a host names it: the Agent and the ServicePrincipal it acts as. */
export interface AgentResource {
  readonly id: string;
  readonly servicePrincipalId: string;
}

/** OCC's AgentRevision, as far as a host names it: its ID and its number. */
export interface RevisionResource {
  readonly id: string;
  readonly revision: number;
}

/** The admitted `openclaw.json`: its exact text, SHA-256 and auth mode. */
export interface RenderedDocument {
  readonly text: string;
  readonly hash: string;
  readonly auth: Args<typeof prepareRevisionOperation>['configuration']['auth'];
}

/** What an activation is given besides the revision. */
export interface Activation {
  readonly configurationHash: string;
  readonly launchEnvironment: Record<string, string>;
  readonly readinessTimeoutMs: number;
  /** OCC's WorkspaceSetup of this pass, when there is one: the gateway starts only once its marker records it. */
  readonly setup?: { readonly id: string } | undefined;
}

/** ensure-namespace and delete-namespace. */
export function namespaceArgs(namespace: NamespaceResource): Args<typeof ensureNamespaceOperation> {
  return { namespace: { id: namespace.id, name: namespace.name } };
}

/** Who owns an Agent on a host: the one shape every Agent operation names it by. */
export function ownerOf({ namespace, agent }: { namespace: NamespaceResource; agent: AgentResource }): AgentOwner {
  return { namespace: { id: namespace.id, name: namespace.name }, agent: { id: agent.id }, servicePrincipal: { id: agent.servicePrincipalId } };
}

/** OCC's `revision` number travels as `number`. */
export function revisionIdentityOf(revision: RevisionResource): RevisionIdentity {
  return { id: revision.id, number: revision.revision };
}

/** verify-, stop- and retire-revision, diagnose-deployment and describe-runtime: one revision of one Agent. */
export function revisionArgs(owner: AgentOwner, revision: RevisionResource): Args<typeof verifyRevisionOperation> {
  return { owner, revision: revisionIdentityOf(revision) };
}

export function prepareArgs(owner: AgentOwner, revision: RevisionResource, document: RenderedDocument): Args<typeof prepareRevisionOperation> {
  return { owner, revision: revisionIdentityOf(revision), harness: 'openclaw/embedded', configuration: { document: document.text, hash: document.hash, auth: document.auth } };
}

export function setupArgs(owner: AgentOwner, revision: RevisionResource, setup: Args<typeof setupWorkspaceOperation>['setup']): Args<typeof setupWorkspaceOperation> {
  return { owner, revision: revisionIdentityOf(revision), setup };
}

export function activateArgs(owner: AgentOwner, revision: RevisionResource, activation: Activation): Args<typeof activateRevisionOperation> {
  return {
    owner,
    revision: revisionIdentityOf(revision),
    configurationHash: activation.configurationHash,
    launchEnvironment: activation.launchEnvironment,
    readinessTimeoutMs: activation.readinessTimeoutMs,
    ...(activation.setup ? { workspaceSetupId: activation.setup.id } : {}),
  };
}

export function deleteAgentArgs(owner: AgentOwner): Args<typeof deleteAgentOperation> {
  return { owner };
}

type LogQuery = Omit<Args<typeof readLogsOperation>, 'owner' | 'revision'>;

/** One page of the Agent's gateway journal; with a revision, only since that revision was served. */
export function readLogsArgs(owner: AgentOwner, query: LogQuery, revision?: RevisionResource): Args<typeof readLogsOperation> {
  return { owner, ...(revision ? { revision: revisionIdentityOf(revision) } : {}), ...query };
}
