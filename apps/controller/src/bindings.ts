// In-memory copies of the authoritative Namespace/Agent/ServicePrincipal bindings.
import { ComputeError, agentIdentity, namespaceIdentity, ownerOf, servicePrincipalIdentity, type AgentOwner } from '@occ-ssh/protocol';
import type { Agent, AgentRevision, ComputeAgentBinding, Namespace } from './types.js';

/** The fields the driver keeps from OCC's Agent; everything else stays with OCC. */
export interface BoundAgent {
  readonly id: string;
  readonly namespaceId: string;
  readonly servicePrincipalId: string;
  readonly pluginApprovers?: Agent['pluginApprovers'];
}

export interface BoundRevision {
  namespace: Namespace;
  agent: BoundAgent;
  owner: AgentOwner;
}

/** Security: adoption of a backend namespace is unsupported; refused before any host is contacted. */
export function refuseExistingNamespace(namespace: Namespace): void {
  if (namespace?.existingNamespace !== undefined) {
    throw new ComputeError('admission', `Namespace ${String(namespace.id)}: existingNamespace adoption is not supported by SSH Compute`, { key: 'existingNamespace' });
  }
}

export class Bindings {
  private readonly namespaces = new Map<string, Namespace>();
  private readonly agents = new Map<string, BoundAgent>();

  bind({ namespace, agent }: ComputeAgentBinding): void {
    const checks = [
      namespaceIdentity.safeParse({ id: namespace?.id, name: namespace?.name }),
      agentIdentity.safeParse({ id: agent?.id }),
      servicePrincipalIdentity.safeParse({ id: agent?.servicePrincipalId }),
    ];
    if (checks.some((check) => !check.success)) throw new ComputeError('configuration', 'bindAgent received a malformed Namespace, Agent or ServicePrincipal identity');
    refuseExistingNamespace(namespace);
    if (agent.namespaceId !== namespace.id) throw new ComputeError('unbound', `Agent ${agent.id} does not belong to Namespace ${namespace.id}`);
    const existing = this.namespaces.get(namespace.id);
    if (existing && existing.name !== namespace.name) throw new ComputeError('unbound', `Namespace ${namespace.id} is already bound under another name`);
    // Security: a binding is ownership; a second call may repeat it, never move it.
    const bound = this.agents.get(agent.id);
    if (bound && bound.namespaceId !== agent.namespaceId) throw new ComputeError('ownership', `Agent ${agent.id} is already bound to another Namespace`);
    if (bound && bound.servicePrincipalId !== agent.servicePrincipalId) throw new ComputeError('ownership', `Agent ${agent.id} is already bound to another ServicePrincipal`);
    this.namespaces.set(namespace.id, Object.freeze({ id: namespace.id, name: namespace.name }));
    const copy: BoundAgent = { id: agent.id, namespaceId: agent.namespaceId, servicePrincipalId: agent.servicePrincipalId };
    this.agents.set(agent.id, Object.freeze(agent.pluginApprovers === undefined ? copy : { ...copy, pluginApprovers: structuredClone(agent.pluginApprovers) }));
  }

  /** Security: a revision operation runs only for the exact bound Namespace and Agent; anything else fails closed. */
  require(revision: Pick<AgentRevision, 'id' | 'namespaceId' | 'agentId'>): BoundRevision {
    const agent = this.agents.get(revision.agentId);
    const namespace = this.namespaces.get(revision.namespaceId);
    if (!agent || !namespace || agent.namespaceId !== namespace.id) {
      throw new ComputeError('unbound', `revision ${String(revision.id)} has no matching Agent binding; bindAgent must run first`);
    }
    return {
      namespace,
      agent,
      owner: ownerOf({ namespace, agent }),
    };
  }

  /** After an Agent's deletion: a later call for it must bind it again. */
  clearAgent(agentId: string): void {
    this.agents.delete(agentId);
  }

  clearNamespace(namespaceId: string): void {
    this.namespaces.delete(namespaceId);
    for (const [id, agent] of this.agents) if (agent.namespaceId === namespaceId) this.agents.delete(id);
  }
}
