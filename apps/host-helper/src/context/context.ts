// What every operation receives: trusted runtime settings, the session and the host layout.
import { agentLayout, namespaceLayout, revisionLayout, rootLayout, type AgentLayout } from '@occ-ssh/markers';
import type { AgentOwner, RevisionIdentity, RuntimeSettings } from '@occ-ssh/protocol';
import type { LockScope } from '../lock/lock.js';
import type { Session } from './session.js';
import type { HostRunner } from '../run/system.js';

export interface OpContext {
  runtime: RuntimeSettings;
  session: Session;
  /** Runs every external command of the operation (run/system.ts); a unit test hands `apply` a recording one. */
  runner: HostRunner;
  /** The host lock, for mutating operations (dispatch takes it before they run). */
  lock?: LockScope;
}

export function rootPaths(ctx: OpContext) {
  return rootLayout(ctx.runtime.root);
}

export function namespacePaths(ctx: OpContext, namespaceId: string) {
  return namespaceLayout(ctx.runtime.root, namespaceId);
}

export function agentPaths(ctx: OpContext, owner: AgentOwner): AgentLayout {
  return agentLayout(ctx.runtime.root, ctx.runtime.systemdUnitDirectory, owner.namespace.id, owner.agent.id);
}

export function revisionPaths(agent: AgentLayout, revision: RevisionIdentity) {
  return revisionLayout(agent.dir, revision.id);
}
