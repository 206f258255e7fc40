// In-memory copies of the authoritative Namespace/Agent/ServicePrincipal bindings.
import { ComputeError, agentIdentity, namespaceIdentity, servicePrincipalIdentity, type AgentOwner } from '@occ-ssh/protocol';
import type { AgentBinding, AgentResource, AgentRevision, NamespaceResource } from './types.js';

export interface BoundRevision {
  namespace: NamespaceResource;
  agent: AgentResource;
  owner: AgentOwner;
}

export class Bindings {
  private readonly namespaces = new Map<string, NamespaceResource>();
  private readonly agents = new Map<string, AgentResource>();

  bind({ namespace, agent }: AgentBinding): void {
    const checks = [namespaceIdentity.safeParse({ id: namespace?.id, name: namespace?.name }), agentIdentity.safeParse({ id: agent?.id }), servicePrincipalIdentity.safeParse({ id: agent?.servicePrincipal?.id })];
    if (checks.some((check) => !check.success)) throw new ComputeError('configuration', 'bindAgent received a malformed Namespace, Agent or ServicePrincipal identity');
    if (agent.namespaceId !== namespace.id) throw new ComputeError('unbound', `Agent ${agent.id} does not belong to Namespace ${namespace.id}`);
    const existing = this.namespaces.get(namespace.id);
    if (existing && existing.name !== namespace.name) throw new ComputeError('unbound', `Namespace ${namespace.id} is already bound under another name`);
    this.namespaces.set(namespace.id, Object.freeze({ id: namespace.id, name: namespace.name }));
    this.agents.set(agent.id, Object.freeze(structuredClone(agent)));
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
      owner: { namespace: { id: namespace.id, name: namespace.name }, agent: { id: agent.id }, servicePrincipal: { id: agent.servicePrincipal.id } },
    };
  }

  clearNamespace(namespaceId: string): void {
    this.namespaces.delete(namespaceId);
    for (const [id, agent] of this.agents) if (agent.namespaceId === namespaceId) this.agents.delete(id);
  }
}
