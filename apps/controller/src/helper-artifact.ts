// The host helper this controller ships: one CommonJS file, loaded once and identified by SHA-256.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readArtifact, type HelperArtifact } from '@occ-ssh/helper-call';
import { ComputeError } from '@occ-ssh/protocol';

export type { HelperArtifact };

/** Set by the release build: a package finds its helper beside the module, never in a workspace. */
declare const OCC_SSH_PACKAGED: boolean | undefined;

/** Next to the bundled controller (a package or dist), or the workspace build output when run from source. */
const CANDIDATES = typeof OCC_SSH_PACKAGED === 'boolean' && OCC_SSH_PACKAGED ? ['./host-helper.cjs'] : ['./host-helper.cjs', '../../../dist/apps/host-helper/host-helper.cjs'];

let cached: HelperArtifact | undefined;

export function loadHelperArtifact(): HelperArtifact {
  if (cached) return cached;
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (!existsSync(path)) continue;
    cached = readArtifact(readFileSync(path), path);
    return cached;
  }
  throw new ComputeError('configuration', 'the host helper artifact (host-helper.cjs beside the controller module) is missing; build the workspace (npm run build) or reinstall the package');
}
