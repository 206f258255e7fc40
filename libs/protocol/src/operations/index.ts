// The operation table: each wire operation's argument and result schema, declared once.
import type * as z from 'zod/mini';
import { activateRevisionArgs, activateRevisionResult } from './activate-revision.js';
import { deleteNamespaceArgs, deleteNamespaceResult } from './delete-namespace.js';
import { ensureNamespaceArgs, ensureNamespaceResult } from './ensure-namespace.js';
import { inventoryArgs, inventoryResult } from './inventory.js';
import { prepareRevisionArgs, prepareRevisionResult } from './prepare-revision.js';
import { probeArgs, probeResult } from './probe.js';
import {
  retireRevisionArgs,
  retireRevisionResult,
  stopRevisionArgs,
  stopRevisionResult,
  verifyRevisionArgs,
  verifyRevisionResult,
} from './revision-ops.js';

export const OPERATIONS = {
  probe: { args: probeArgs, result: probeResult, mutates: false },
  'ensure-namespace': { args: ensureNamespaceArgs, result: ensureNamespaceResult, mutates: true },
  'delete-namespace': { args: deleteNamespaceArgs, result: deleteNamespaceResult, mutates: true },
  'prepare-revision': { args: prepareRevisionArgs, result: prepareRevisionResult, mutates: true },
  'activate-revision': { args: activateRevisionArgs, result: activateRevisionResult, mutates: true },
  'verify-revision': { args: verifyRevisionArgs, result: verifyRevisionResult, mutates: false },
  'stop-revision': { args: stopRevisionArgs, result: stopRevisionResult, mutates: true },
  'retire-revision': { args: retireRevisionArgs, result: retireRevisionResult, mutates: true },
  inventory: { args: inventoryArgs, result: inventoryResult, mutates: false },
} as const;

export type OperationName = keyof typeof OPERATIONS;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];
export type OperationArgs<O extends OperationName> = z.infer<(typeof OPERATIONS)[O]['args']>;
export type OperationResult<O extends OperationName> = z.infer<(typeof OPERATIONS)[O]['result']>;

export * from './activate-revision.js';
export * from './delete-namespace.js';
export * from './ensure-namespace.js';
export * from './inventory.js';
export * from './prepare-revision.js';
export * from './probe.js';
export * from './revision-ops.js';
