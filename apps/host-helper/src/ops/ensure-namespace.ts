// ensure-namespace: create the Namespace directory with its marker, or verify an existing one.
import { namespaceMarker } from '@occ-ssh/markers';
import { DRIVER_ID, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { namespacePaths, rootPaths, type OpContext } from '../context/context.js';
import { expectOwner, readMarker } from '../fs/marker-io.js';
import { indexedPorts, withNamespace, type PortRecord } from '../gateway/port-index.js';
import { applyPlanned } from '../plan/render.js';
import { siblingTempPrefix, type Plan } from '../plan/steps.js';
import { ROOT_PRIVATE_DIR, ownershipError, verifyDir } from '../fs/safe-read.js';

type Args = OperationArgs<'ensure-namespace'>;

export interface NamespaceState {
  layout: ReturnType<typeof namespacePaths>;
  namespaces: string;
  exists: boolean;
  /** Every Agent's port from the port index, when it describes the tree; null otherwise. */
  ports: PortRecord | null;
}

export async function ensureNamespace(ctx: OpContext, args: Args): Promise<OperationResult<'ensure-namespace'>> {
  const plan = ensureNamespacePlan(ctx, args);
  await applyPlanned(ctx, plan.steps);
  return plan.result;
}

/** What ensureNamespace reads and plans, for it and for plan-operation alike. */
export function ensureNamespacePlan(ctx: OpContext, args: Args): Plan<OperationResult<'ensure-namespace'>> {
  return planEnsureNamespace(readEnsureNamespace(ctx, args), args);
}

function readEnsureNamespace(ctx: OpContext, args: Args): NamespaceState {
  const layout = namespacePaths(ctx, args.namespace.id);
  const exists = verifyDir(layout.dir, ROOT_PRIVATE_DIR) !== null;
  if (exists) {
    const existing = readMarker(layout.marker, namespaceMarker);
    // Security: the driver never makes a Namespace directory without its marker, so one without it is not ours.
    if (!existing) throw ownershipError(layout.marker, 'Namespace directory exists without its marker; refusing to adopt it');
    expectOwner(layout.marker, existing, namespaceOwner(args));
    verifyDir(layout.agents, ROOT_PRIVATE_DIR);
  }
  return { layout, namespaces: rootPaths(ctx).namespaces, exists, ports: exists ? null : indexedPorts(ctx.runtime.root) };
}

export function planEnsureNamespace({ layout, namespaces, exists, ports }: NamespaceState, args: Args): Plan<OperationResult<'ensure-namespace'>> {
  if (exists) {
    return {
      steps: [
        { op: 'sweep-temps', dir: layout.dir },
        { op: 'ensure-dir', path: layout.agents, owner: ROOT_PRIVATE_DIR },
      ],
      result: { created: false },
    };
  }
  const marker = { kind: 'namespace', version: 1, ...namespaceOwner(args) } as const;
  return {
    steps: [
      { op: 'sweep-temps', dir: namespaces, prefix: siblingTempPrefix(layout.dir) },
      // Built whole in a temp directory and renamed into place: the Namespace never exists without its marker.
      {
        op: 'create-dir-atomic',
        path: layout.dir,
        owner: ROOT_PRIVATE_DIR,
        inside: [
          { op: 'write-marker', path: layout.marker, marker },
          { op: 'ensure-dir', path: layout.agents, owner: ROOT_PRIVATE_DIR },
        ],
      },
      ...(ports ? [{ op: 'record-ports', ports: withNamespace(ports, layout.dir, true) } as const] : []),
    ],
    result: { created: true },
  };
}

function namespaceOwner(args: Args) {
  return { driver: DRIVER_ID, namespaceId: args.namespace.id, namespaceName: args.namespace.name };
}
