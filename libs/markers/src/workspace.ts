// The workspace setup marker: which OCC setup was delivered into an Agent's workspace, which documents
// by digest, with which OpenClaw build. Root's, in the Agent directory the Agent cannot write.
import { resourceId, sha256Hex, workspaceFileName } from '@occ-ssh/protocol';
import * as z from 'zod/mini';

export const workspaceSetupMarker = z.strictObject({
  kind: z.literal('workspace-setup'),
  version: z.literal(1),
  driver: z.literal('compute-ssh'),
  namespaceId: resourceId,
  agentId: resourceId,
  servicePrincipalId: resourceId,
  setupId: resourceId,
  defaultsId: z.optional(sha256Hex),
  /** SHA-256 of each document delivered, by name; later user edits do not change it. */
  documents: z.partialRecord(workspaceFileName, sha256Hex),
  openclawVersion: z.string().check(z.regex(/^[0-9A-Za-z.+-]{1,64}$/)),
});
export type WorkspaceSetupMarker = z.infer<typeof workspaceSetupMarker>;

/** The marker's path in the Agent directory (root 0711): never inside the Agent-writable workspace. */
export function workspaceSetupMarkerPath(agentDir: string): string {
  return `${agentDir}/workspace-setup.json`;
}

/** Native setup's workspace under the Agent's state/ (OPENCLAW_STATE_DIR), where OpenClaw puts it when the configuration names none. */
export function managedWorkspaceDir(stateDir: string): string {
  return `${stateDir}/workspace`;
}
