// ensure-namespace: create the Namespace directory with its marker, or verify an existing one.
import { namespaceMarker } from '@occ-ssh/markers';
import { DRIVER_ID, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { createDirAtomic, ensureDir, sweepTemps } from '../atomic-write.js';
import { namespacePaths, rootPaths, type OpContext } from '../context.js';
import { expectOwner, readMarker, writeMarker } from '../marker-io.js';
import { ROOT_PRIVATE_DIR, lstatOrNull, ownershipError } from '../safe-read.js';

export async function ensureNamespace(ctx: OpContext, args: OperationArgs<'ensure-namespace'>): Promise<OperationResult<'ensure-namespace'>> {
  const paths = namespacePaths(ctx, args.namespace.id);
  const owner = { driver: DRIVER_ID, namespaceId: args.namespace.id, namespaceName: args.namespace.name };
  if (lstatOrNull(paths.dir) !== null) {
    ensureDir(paths.dir, ROOT_PRIVATE_DIR);
    sweepTemps(paths.dir);
    const existing = readMarker(paths.marker, namespaceMarker);
    // Security: the driver never makes a Namespace directory without its marker, so one without it is not ours.
    if (!existing) throw ownershipError(paths.marker, 'Namespace directory exists without its marker; refusing to adopt it');
    expectOwner(paths.marker, existing, owner);
    ensureDir(paths.agents, ROOT_PRIVATE_DIR);
    return { created: false };
  }
  const namespaces = rootPaths(ctx).namespaces;
  sweepTemps(namespaces, `.${paths.dir.slice(namespaces.length + 1)}`);
  createDirAtomic(paths.dir, ROOT_PRIVATE_DIR, (dir) => {
    const inTemp = (path: string) => `${dir}${path.slice(paths.dir.length)}`;
    writeMarker(inTemp(paths.marker), { kind: 'namespace', version: 1, ...owner });
    ensureDir(inTemp(paths.agents), ROOT_PRIVATE_DIR);
  });
  return { created: true };
}
