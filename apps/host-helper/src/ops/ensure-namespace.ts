// ensure-namespace: create the Namespace directory and marker, or verify an existing marker.
import { namespaceMarker } from '@occ-ssh/markers';
import { DRIVER_ID, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { namespacePaths, type OpContext } from '../context.js';
import { ROOT_PRIVATE_DIR, ensureDir, sweepTemps } from '../fsx.js';
import { expectOwner, readMarker, writeMarker } from '../marker-io.js';

export async function ensureNamespace(ctx: OpContext, args: OperationArgs<'ensure-namespace'>): Promise<OperationResult<'ensure-namespace'>> {
  const paths = namespacePaths(ctx, args.namespace.id);
  const owner = { driver: DRIVER_ID, namespaceId: args.namespace.id, namespaceName: args.namespace.name };
  ctx.session.checkpoint();
  ensureDir(paths.dir, ROOT_PRIVATE_DIR);
  sweepTemps(paths.dir);
  const existing = readMarker(paths.marker, namespaceMarker);
  if (existing) {
    expectOwner(paths.marker, existing, owner);
    ensureDir(paths.agents, ROOT_PRIVATE_DIR);
    return { created: false };
  }
  ctx.session.checkpoint();
  writeMarker(paths.marker, { kind: 'namespace', version: 1, ...owner });
  ensureDir(paths.agents, ROOT_PRIVATE_DIR);
  return { created: true };
}
