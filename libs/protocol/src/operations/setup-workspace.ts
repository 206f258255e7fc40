// setup-workspace: the Agent's first workspace documents delivered through native `openclaw setup`, or
// the completion marker verified; runs after prepare-revision staged the revision, never starts the gateway.
import * as z from 'zod/mini';
import { resourceId, sha256Hex } from '../fields.js';
import { agentOwner, revisionIdentity } from '../identity.js';
import { WORKSPACE_FILE_NAMES, workspaceContent, workspaceFileName } from '../workspace.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_OWNER, EXAMPLE_REVISION } from './examples.js';

const workspaceDocument = z.strictObject({ name: workspaceFileName, content: workspaceContent });

/** OCC's WorkspaceSetup for this pass, its documents as a list of distinct names. */
export const workspaceSetupArgs = z.strictObject({
  id: resourceId,
  defaultsId: z.optional(sha256Hex),
  /** OCC has recorded the setup complete: only the marker is verified, nothing is written. */
  completed: z.boolean(),
  documents: z.array(workspaceDocument).check(
    z.maxLength(WORKSPACE_FILE_NAMES.length),
    z.refine((documents) => new Set(documents.map((document) => document.name)).size === documents.length, 'each workspace document name may appear once'),
  ),
});

export const setupWorkspaceOperation = lazyOperation(true, () => ({
  args: z.strictObject({ owner: agentOwner, revision: revisionIdentity, setup: workspaceSetupArgs }),
  result: z.strictObject({
    /** `applied`: delivered now; `verified`: the marker already records this setup (a retry, or a later deployment). */
    workspace: z.enum(['applied', 'verified']),
    openclawVersion: z.string(),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const setupWorkspaceExample = (): OperationExample<typeof setupWorkspaceOperation> => ({
  args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION, setup: { id: 'setup-1', completed: false, documents: [{ name: 'SOUL.md', content: '# SOUL.md\n\nCalm and exact.\n' }] } },
  result: { workspace: 'applied', openclawVersion: '2026.9.6' },
});
