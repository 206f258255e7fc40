// The two readings of a host a convergence check compares: before the trial and after the retry.
import { agentHash, nsHash } from '@occ-ssh/markers';
import type { AgentOwner, MutatingOperation } from '@occ-ssh/protocol';
import type { Listing } from '../host/listing.js';
import type { AgentModel, HostModel } from './model.js';

export interface Views {
  operation: MutatingOperation;
  before: Listing;
  after: Listing;
  was: HostModel;
  now: HostModel;
}

export function agentOf(model: HostModel, owner: AgentOwner): AgentModel | undefined {
  return model.namespaces.get(nsHash(owner.namespace.id))?.agents.get(agentHash(owner.agent.id));
}
