// Runs hooks with a bound each, in registration order or reverse, and compensates on failure.
import { ComputeError, LAUNCH_ENV_NAME_PATTERN, launchEnvironmentProblems } from '@occ-ssh/protocol';
import type { AgentRevision, LifecycleDriver, ComputeLifecycleHooks, Namespace, WorkloadLaunchContext } from '../types.js';

export const HOOK_TIMEOUT_MS = 30_000;

type Phase = keyof ComputeLifecycleHooks;

/** Security: the message names only the owner and phase, never what the hook threw. */
function hookFailure(owner: LifecycleDriver, phase: Phase, timedOut: boolean): ComputeError {
  return new ComputeError('hook', `${phase} hook of lifecycle driver "${owner.id}" ${timedOut ? 'timed out' : 'failed'}`, { operation: phase });
}

async function bounded(owner: LifecycleDriver, phase: Phase, parent: AbortSignal | undefined, call: (signal: AbortSignal) => Promise<void>): Promise<void> {
  if (parent?.aborted) throw new ComputeError('cancelled', `${phase} hooks cancelled`, { operation: phase });
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent?.reason);
  parent?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('hook timeout'));
  }, HOOK_TIMEOUT_MS);
  try {
    await Promise.race([call(controller.signal), new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }))]);
  } catch {
    if (parent?.aborted && !timedOut) throw new ComputeError('cancelled', `${phase} hooks cancelled`, { operation: phase });
    throw hookFailure(owner, phase, timedOut);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onAbort);
  }
}

/**
 * afterNamespacePrepared in registration order; when one fails, the owners that completed are
 * compensated with beforeNamespaceDelete in reverse before the error surfaces. beforeNamespaceDelete
 * runs in reverse order and stops at the first failure, so the deletion does not go ahead.
 */
export async function runNamespaceHooks(owners: readonly LifecycleDriver[], phase: 'afterNamespacePrepared' | 'beforeNamespaceDelete', namespace: Namespace, signal?: AbortSignal): Promise<void> {
  const ordered = phase === 'beforeNamespaceDelete' ? [...owners].reverse() : owners;
  const completed: LifecycleDriver[] = [];
  try {
    for (const owner of ordered) {
      const hook = owner.computeLifecycleHooks[phase];
      if (!hook) continue;
      await bounded(owner, phase, signal, (s) => hook.call(owner.computeLifecycleHooks, structuredClone(namespace), s));
      completed.push(owner);
    }
  } catch (error) {
    if (phase === 'afterNamespacePrepared') await compensateNamespace(completed, namespace);
    throw error;
  }
}

/** beforeNamespaceDelete for owners whose afterNamespacePrepared completed, in reverse; every owner runs, its own failure is not masked over the cause. */
async function compensateNamespace(completed: readonly LifecycleDriver[], namespace: Namespace): Promise<void> {
  for (const owner of [...completed].reverse()) {
    const hook = owner.computeLifecycleHooks.beforeNamespaceDelete;
    if (hook) await bounded(owner, 'beforeNamespaceDelete', undefined, (s) => hook.call(owner.computeLifecycleHooks, structuredClone(namespace), s)).catch(() => undefined);
  }
}

/** beforeWorkloadStop in reverse registration order; every owner runs even if one fails. */
export async function runStopHooks(owners: readonly LifecycleDriver[], revision: AgentRevision, signal?: AbortSignal): Promise<void> {
  let first: ComputeError | undefined;
  for (const owner of [...owners].reverse()) {
    const hook = owner.computeLifecycleHooks.beforeWorkloadStop;
    if (!hook) continue;
    try {
      await bounded(owner, 'beforeWorkloadStop', signal, (s) => hook.call(owner.computeLifecycleHooks, structuredClone(revision), s));
    } catch (error) {
      first ??= error as ComputeError;
    }
  }
  if (first) throw first;
}

export interface StartedHooks {
  environment: Record<string, string>;
  started: LifecycleDriver[];
}

/**
 * beforeWorkloadStart in registration order. Each hook's placeholders are validated and merged;
 * on any failure the hooks that completed are compensated in reverse before the error surfaces.
 */
export async function runStartHooks(owners: readonly LifecycleDriver[], revision: AgentRevision, signal?: AbortSignal): Promise<StartedHooks> {
  const started: LifecycleDriver[] = [];
  const environment: Record<string, string> = {};
  try {
    for (const owner of owners) {
      const hook = owner.computeLifecycleHooks.beforeWorkloadStart;
      if (!hook) continue;
      const launch: WorkloadLaunchContext = { environment: {} };
      await bounded(owner, 'beforeWorkloadStart', signal, (s) => hook.call(owner.computeLifecycleHooks, structuredClone(revision), launch, s));
      started.push(owner);
      mergeEnvironment(environment, launch.environment, owner);
    }
  } catch (error) {
    await compensate(started, revision);
    throw error;
  }
  return { environment, started };
}

function mergeEnvironment(into: Record<string, string>, from: unknown, owner: LifecycleDriver): void {
  if (typeof from !== 'object' || from === null || Array.isArray(from)) {
    throw new ComputeError('configuration', `launch environment from lifecycle driver "${owner.id}" is not a name-to-value map`);
  }
  const entries = from as Record<string, unknown>;
  // Security: a malformed name may itself be a secret a hook leaked; count them, never echo them.
  const invalid = Object.keys(entries).filter((name) => !LAUNCH_ENV_NAME_PATTERN.test(name)).length;
  if (invalid > 0) throw new ComputeError('configuration', `launch environment from lifecycle driver "${owner.id}" has ${invalid} invalid variable name(s)`);
  for (const name of Object.keys(entries)) {
    if (name in into) throw new ComputeError('configuration', `launch environment variable ${/^[A-Z_][A-Z0-9_]*$/.test(name) ? name : '(invalid name)'} is set by two lifecycle drivers`);
  }
  const problems = launchEnvironmentProblems({ ...into, ...entries });
  if (problems.length > 0) throw new ComputeError('configuration', `launch environment from lifecycle driver "${owner.id}" refused: ${problems.join('; ')}`);
  Object.assign(into, entries);
}

/** Bounded beforeWorkloadStop for hooks that already prepared a start; its own failures are not masked over the cause. */
export async function compensate(started: readonly LifecycleDriver[], revision: AgentRevision): Promise<void> {
  await runStopHooks(started, revision).catch(() => undefined);
}
