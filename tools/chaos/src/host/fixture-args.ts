// The campaign's operation arguments: test support's builders with the fixture gateway's behaviour
// block in the document, and Agents named by tag.
import type { AgentOwner, OperationArgs } from '@occ-ssh/protocol';
import { TEST_RUNTIME } from '@occ-ssh/occ-fixtures';
import { activateArgs as activateWith, owner, prepareArgs as prepareWith } from '@occ-ssh/test-support';

export const RUNTIME_USER = TEST_RUNTIME.user;

/** What the fixture gateway does once started (read from its document's `fixtureGateway` block). */
export interface FixtureBehaviour {
  readyAfterMs?: number;
  neverReady?: boolean;
  exitAtStart?: boolean;
  crashAfterReadyMs?: number;
  ignoreSigterm?: boolean;
}

/** A distinct Namespace/Agent/ServicePrincipal triple per tag; agentTag names the Agent within it. */
export function ownerOf(tag: string, agentTag = tag, namespaceName = 'stable'): AgentOwner {
  return { ...owner(agentTag, namespaceName), namespace: { id: `ns-${tag}`, name: namespaceName } };
}

export const siblingAgentId = (agentId: string): string => `${agentId}-sib`;

/** Another Agent (and ServicePrincipal) in the same Namespace as `who`. */
export function siblingOf(who: AgentOwner): AgentOwner {
  return { namespace: who.namespace, agent: { id: siblingAgentId(who.agent.id) }, servicePrincipal: { id: `${who.servicePrincipal.id}-sib` } };
}

export function prepareArgs(who: AgentOwner, number: number, fixture: FixtureBehaviour = {}): OperationArgs<'prepare-revision'> {
  return prepareWith(who, number, { fixtureGateway: fixture });
}

export function activateArgs(prepared: OperationArgs<'prepare-revision'>, readinessTimeoutMs = 30_000): OperationArgs<'activate-revision'> {
  return activateWith(prepared, {}, readinessTimeoutMs);
}

export function targetArgs(prepared: OperationArgs<'prepare-revision'>): OperationArgs<'stop-revision'> {
  return { owner: prepared.owner, revision: prepared.revision };
}

/**
 * The first workspace setup of a prepared revision: two documents, each carrying `sentinel` (the
 * lanes' document sentinel, which nothing they collect may show).
 */
export function setupArgs(prepared: OperationArgs<'prepare-revision'>, sentinel: string): OperationArgs<'setup-workspace'> {
  const documents = [
    { name: 'SOUL.md' as const, content: `# SOUL.md\n\nSteady under faults.\n${sentinel}\n` },
    { name: 'USER.md' as const, content: `# USER.md\n\n- Reads every line.\n${sentinel}-user\n` },
  ];
  return { owner: prepared.owner, revision: prepared.revision, setup: { id: `setup-${prepared.revision.id}`, completed: false, documents } };
}

/** Activation of a revision whose workspace setup must be recorded first. */
export function activateSetUp(prepared: OperationArgs<'prepare-revision'>, setup: OperationArgs<'setup-workspace'>): OperationArgs<'activate-revision'> {
  return { ...activateArgs(prepared), workspaceSetupId: setup.setup.id };
}
