// What the crash-point and injected-error lanes plan, count and record.
import { MUTATING_OPERATIONS } from '@occ-ssh/protocol';
import type { MutatingOperation } from '../host-state/expectations.js';
import type { Hit, Injection, Lane, Point } from './strace-log.js';
import type { TrialRecord } from '../trials/trial.js';

/** Every mutating operation; setup-workspace runs native setup through the lane's setup gateway (setup-gateway.ts). */
export const CRASH_OPERATIONS: readonly MutatingOperation[] = MUTATING_OPERATIONS;

/**
 * The operations with the most points first (as a campaign counts them: prepare-revision's many files,
 * the account tools' calls inside both deletions), so hosts that share them end close together.
 */
const MOST_POINTS_FIRST: readonly MutatingOperation[] = ['prepare-revision', 'delete-agent', 'delete-namespace', 'activate-revision'];

/** Hands out the operations one at a time, most points first, to whichever host asks next. */
export function operationQueue(operations: readonly MutatingOperation[]): () => MutatingOperation | undefined {
  const rank = (op: MutatingOperation) => (MOST_POINTS_FIRST.includes(op) ? MOST_POINTS_FIRST.indexOf(op) : MOST_POINTS_FIRST.length);
  const left = [...operations].sort((a, b) => rank(a) - rank(b));
  return () => left.shift();
}

/** Which injected error each system call gets in the injected-error lane: a full disk for writes and syncs, an I/O error for renames. */
export const ERROR_FOR: Record<string, Injection> = Object.fromEntries([
  ...['write', 'pwrite64', 'writev', 'fsync', 'fdatasync'].map((call) => [call, { kind: 'error', errno: 'ENOSPC' }] as const),
  ...['rename', 'renameat', 'renameat2'].map((call) => [call, { kind: 'error', errno: 'EIO' }] as const),
]);

/**
 * How often a helper point is tried again when extra calls (heartbeats on the session socket,
 * lazily opened files) moved its number; a child's numbering does not drift, so it is tried once.
 */
export const ATTEMPTS: Record<Lane | 'errors', number> = { helper: 5, children: 1, errors: 3 };

export interface CrashPlan {
  /** Every `step`-th point (1: all of them), the same ones on every run. */
  step: number;
  lanes: readonly Lane[];
  operations: readonly MutatingOperation[];
}

export interface CrashRecord extends TrialRecord {
  lane: Lane | 'errors';
  point: Point;
  /** The call the injection really hit (undefined: the operation ended before it). */
  hit?: Hit;
  /** The hit was the intended call (same program, system call and ordinal). */
  exact: boolean;
  attempt: number;
  injection: string;
  /** Errors lane: the first call's result code (or `none` for a success, `no-line` for a crash). */
  firstCode?: string;
  /**
   * Errors lane: the number drifted onto a socket, pipe or eventfd write, which no disk fault
   * can fail; such a trial is kept and listed but not judged.
   */
  offTarget?: boolean;
}

export interface OperationCount {
  operation: MutatingOperation;
  lane: Lane;
  points: Point[];
  /** Programs that ran as children, and how many mutating calls each made on shadow's files. */
  children: Record<string, number>;
}
