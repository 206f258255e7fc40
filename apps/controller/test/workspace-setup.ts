// What both workspace-setup files share: OCC's four documents with a sentinel no log may carry, the
// revision context that carries them, and a rejection that must be a ComputeError.
import assert from 'node:assert/strict';
import { ComputeError } from '@occ-ssh/protocol';
import type { ComputeAgentBinding, ComputeRevisionContext } from '../src/types.js';

export const ROOT = '/var/lib/openclaw-enterprise';
export const UNIT_DIR = '/etc/systemd/system';
export const SENTINEL = 'occ-document-sentinel-7f3a';
export const FILES = {
  'AGENTS.md': `# AGENTS.md\n\nWork in small steps. ${SENTINEL}-agents\n`,
  'SOUL.md': `# SOUL.md\n\nCalm, exact, kind. ${SENTINEL}-soul\n`,
  'IDENTITY.md': `# IDENTITY.md\n\n- Name: Quill ${SENTINEL}-identity\n`,
  'USER.md': `# USER.md\n\n- Prefers short answers. ${SENTINEL}-user\n`,
};

export function contextWith(binding: ComputeAgentBinding, setup: Record<string, unknown>): ComputeRevisionContext {
  return { harnessAuth: { method: 'runtime' }, secretEnvironment: [], workspaceSetup: { id: `setup-${binding.agent.id}`, namespaceId: binding.namespace.id, agentId: binding.agent.id, ...setup } };
}

export async function rejection(promise: Promise<unknown>): Promise<ComputeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ComputeError, String(error));
    return error;
  }
  assert.fail('expected a rejection');
}
