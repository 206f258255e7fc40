// The hostile-tenants section's Agents and helper calls: each call on a fresh ssh client with a cap,
// as a controller would make it, timed as its caller saw it. A call that does not answer within its
// cap is recorded (`no-answer`), never thrown.
import type { AgentOwner, OperationArgs, OperationName } from '@occ-ssh/protocol';
import { accountOf, activateArgs as activateWith, call, layoutOf } from '@occ-ssh/test-support';
import { ownerOf, prepareArgs } from '../host/fixture-args.js';
import type { HostLink } from '../host/ssh.js';
import type { Timed } from './tenant-results.js';

/** An Agent of the section: who it is, and the gateway it runs (a compromised one, or the fixture's). */
export class Tenant {
  readonly owner: AgentOwner;
  private revision = 0;
  openclawPath?: string;

  constructor(
    readonly name: string,
    namespaceTag: string,
  ) {
    this.owner = { ...ownerOf(`tn-${name}`, `tn-${name}`, 'tenants'), namespace: { id: `ns-tn-${namespaceTag}`, name: 'tenants' } };
  }

  get layout() {
    return layoutOf(this.owner);
  }
  get account(): string {
    return accountOf(this.owner);
  }

  /** The next revision's prepare arguments (each trial stages a new one). */
  nextPrepare(): OperationArgs<'prepare-revision'> {
    this.revision += 1;
    return prepareArgs(this.owner, this.revision);
  }
}

/** A helper call for `who`, capped at `capMs` (the ssh client is killed past it). */
export async function timed<O extends OperationName>(link: HostLink, who: Tenant | string, operation: O, args: OperationArgs<O>, capMs: number): Promise<Timed & { result?: unknown }> {
  const runtime = typeof who === 'string' || !who.openclawPath ? {} : { openclawPath: who.openclawPath };
  const outcome = await call(link, operation, args, { runtime, timeoutMs: capMs });
  const name = typeof who === 'string' ? who : who.name;
  const base = { who: name, operation, ms: outcome.ms, ...(outcome.requestId ? { requestId: outcome.requestId } : {}) };
  const line = outcome.line;
  if (!line) return { ...base, ok: false, code: 'no-answer', outcome: `no result line within ${(capMs / 1000).toFixed(0)} s (ssh exit ${String(outcome.code)})` };
  if (line.ok) return { ...base, ok: true, outcome: 'ok', result: line.result };
  return { ...base, ok: false, code: line.error.code, outcome: `${line.error.code}: ${line.error.message.slice(0, 200)}` };
}

/** The call without the helper's result, for the results file. */
export function plain(outcome: Timed & { result?: unknown }): Timed {
  const { result: _result, ...call } = outcome;
  return call;
}

/** Like timed, but throws on failure: for setting up an attack, not for judging it. */
export async function must<O extends OperationName>(link: HostLink, who: Tenant | string, operation: O, args: OperationArgs<O>, capMs = 120_000): Promise<Timed & { result?: unknown }> {
  const outcome = await timed(link, who, operation, args, capMs);
  if (!outcome.ok) throw new Error(`${typeof who === 'string' ? who : who.name} ${operation}: ${outcome.outcome}`);
  return outcome;
}

/** ensure-namespace and a new prepared revision, ready to activate. */
export async function staged(link: HostLink, tenant: Tenant): Promise<OperationArgs<'prepare-revision'>> {
  await must(link, tenant, 'ensure-namespace', { namespace: tenant.owner.namespace });
  const prepared = tenant.nextPrepare();
  await must(link, tenant, 'prepare-revision', prepared);
  return prepared;
}

export function activation(prepared: OperationArgs<'prepare-revision'>, readinessTimeoutMs = 30_000, launchEnvironment: Record<string, string> = {}): OperationArgs<'activate-revision'> {
  return activateWith(prepared, launchEnvironment, readinessTimeoutMs);
}

/** Polls (as root) until `path` exists on the host, up to `waitMs`; true if it appeared. */
export async function appears(link: HostLink, path: string, waitMs: number): Promise<boolean> {
  const tries = Math.max(1, Math.ceil(waitMs / 200));
  const result = await link.exec(['sh', '-c', `i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -ge ${tries} ] && exit 1; sleep 0.2; done`, 'wait', path], { timeoutMs: waitMs + 30_000 });
  return result.code === 0;
}

/** Reads a file as root; undefined when it is absent. */
export async function readAsRoot(link: HostLink, path: string): Promise<string | undefined> {
  const result = await link.exec(['cat', path]);
  return result.code === 0 ? result.stdout : undefined;
}

/** Stops an Agent's unit as root: cleanup after an attack whatever the helper managed. */
export async function stopUnit(link: HostLink, tenant: Tenant): Promise<void> {
  await link.exec(['systemctl', 'stop', tenant.layout.unitName], { timeoutMs: 60_000 });
}

/** Waits until no helper runs on the host any more (a capped client's helper may go on a while). */
export async function helpersGone(link: HostLink, waitMs: number): Promise<boolean> {
  const tries = Math.ceil(waitMs / 500);
  const script = `i=0; while pgrep -f "^$1 - " >/dev/null; do i=$((i+1)); [ $i -ge ${tries} ] && exit 1; sleep 0.5; done`;
  return (await link.exec(['sh', '-c', script, 'wait', link.nodePath], { timeoutMs: waitMs + 30_000 })).code === 0;
}
