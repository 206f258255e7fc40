// The hostile-tenants section: compromised gateways, each attacking from inside its own unit as its
// Agent's account, with well-behaved siblings (in another Namespace and in the same one) on the same
// host. It judges outcomes only, as the attacker and the victims see them: whether sibling calls
// answer in time and succeed, what inventory shows, whether deletion completes, what a sibling can
// read. Attacks: a gateway holding the host's serialization lock, a gateway trickling /readyz,
// forged audit lines, huge trees in home/ and state/, and siblings reading launch placeholders. The
// host-pressure attacks (pressure.ts) run on a second host of the section.
import { setTimeout as sleep } from 'node:timers/promises';
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import type { InventoryResult } from '@occ-ssh/protocol';
import { installTenantGateway, ROOT } from '@occ-ssh/test-support';
import { auditForger, lockHolder, TRICKLER } from './tenant-attacks.js';
import { activation, appears, helpersGone, must, plain, readAsRoot, staged, stopUnit, Tenant, timed } from './tenant-calls.js';
import { runPlaceholderReaders } from './tenant-readers.js';
import type { ForgedAudit, LockTrial, TenantBounds, TenantsResult, Timed, TrickleTrial } from './tenant-results.js';
import { runHugeTrees } from './tenant-trees.js';
import type { HostLink } from '../host/ssh.js';

const TENANT_BOUNDS: TenantBounds = {
  operationMs: 15_000,
  readinessTimeoutMs: 15_000,
  readinessMarginMs: 10_000,
  inventoryMs: 10_000,
  heartbeatGapMs: 5_000,
  deleteAttempts: 3,
};

export type TenantPlan = TenantsResult['plan'];

const FORGED_LINES = 12;
/** Past its bound a call is capped: long enough to see how it ends, short enough for the quick campaign. */
const capOf = (boundMs: number) => boundMs * 2 + 15_000;

/** The well-behaved siblings: one in another Namespace, one in the lock holder's own. */
interface Siblings {
  other: Tenant;
  same: Tenant;
}

/**
 * One lock trial: the holder's gateway runs, the siblings make their calls, then the holder's own
 * stop. Armed, the gateway tries to hold the host's lock in `mode` while they run; calm, it is told
 * nothing and only runs, which measures the same calls on this host under this load.
 */
async function lockTrial(link: HostLink, holder: Tenant, siblings: Siblings, mode: LockTrial['mode'], bounds: TenantBounds, armed = true): Promise<LockTrial> {
  const trial: LockTrial = { mode, held: false, attacker: armed ? '' : 'calm', calls: [], problems: [] };
  const state = holder.layout.state;
  try {
    await link.exec(['rm', '-f', `${state}/lock-armed`, `${state}/lock-go`, `${state}/lock-held`, `${state}/lock-error`, `${state}/lock-probe`]);
    const prepared = await staged(link, holder);
    const own = await timed(link, holder, 'activate-revision', activation(prepared), 120_000);
    if (!own.ok) trial.problems.push(`the lock holder's own activation failed: ${own.outcome}`);
    if (!(await appears(link, `${state}/lock-armed`, 10_000))) throw new Error('the lock-holding gateway never started');
    // The sibling revisions are staged before the lock is taken: what is judged is the calls made while it is held.
    const otherPrepared = siblings.other.nextPrepare();
    const samePrepared = siblings.same.nextPrepare();
    if (armed) {
      await link.run(['install', '-m', '644', '-o', holder.account, '/dev/stdin', `${state}/lock-go`], { input: mode });
      trial.held = await appears(link, `${state}/lock-held`, 5_000);
    }
    const cap = capOf(bounds.operationMs);
    const chain = async (steps: [Tenant, () => Promise<Timed>][]) => {
      for (const [, step] of steps) {
        const outcome = plain(await step());
        trial.calls.push(outcome);
        if (!outcome.ok) return;
      }
    };
    const { other, same } = siblings;
    const chains = Promise.all([
      chain([
        [other, () => timed(link, other, 'ensure-namespace', { namespace: other.owner.namespace }, cap)],
        [other, () => timed(link, other, 'prepare-revision', otherPrepared, cap)],
        [other, () => timed(link, other, 'activate-revision', activation(otherPrepared), cap)],
      ]),
      chain([
        [same, () => timed(link, same, 'prepare-revision', samePrepared, cap)],
        [same, () => timed(link, same, 'activate-revision', activation(samePrepared), cap)],
      ]),
    ]);
    // The holder's own stop goes once the siblings are done (each call is capped), so that a stop
    // freeing the lock cannot hide how long they were held up, and the stop waits on no sibling.
    await chains;
    trial.calls.push(plain(await timed(link, holder, 'stop-revision', { owner: holder.owner, revision: prepared.revision }, cap)));
    if (!armed) return trial;
    const probe = (await readAsRoot(link, `${state}/lock-probe`))?.trim() ?? 'no probe';
    const error = (await readAsRoot(link, `${state}/lock-error`))?.trim().slice(0, 200) ?? '';
    trial.attacker = `${trial.held ? `held --${mode}` : `could not hold --${mode}`}${error ? ` (${error.replace(/\s+/g, ' ')})` : ''}; non-blocking --${probe} (0 taken, 75 held by another, else refused)`;
  } catch (error) {
    trial.problems.push(`trial could not run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  } finally {
    await stopUnit(link, holder);
    await helpersGone(link, 60_000);
  }
  return trial;
}

async function trickleTrial(link: HostLink, trickler: Tenant, sibling: Tenant, bounds: TenantBounds): Promise<TrickleTrial> {
  const blank = (operation: string): Timed => ({ who: '', operation, ok: false, code: 'not-run', outcome: 'not run', ms: 0 });
  const trial: TrickleTrial = { activation: blank('activate-revision'), inventory: blank('inventory'), sibling: blank('activate-revision'), problems: [] };
  try {
    const prepared = await staged(link, trickler);
    const siblingPrepared = await staged(link, sibling);
    const R = bounds.readinessTimeoutMs;
    const activating = timed(link, trickler, 'activate-revision', activation(prepared, R), capOf(R + bounds.readinessMarginMs));
    // Once the trickler's unit has started and its probe is under way.
    await sleep(3000);
    const [inventory, siblingActivation] = await Promise.all([
      timed(link, 'host', 'inventory', {}, capOf(bounds.inventoryMs)),
      timed(link, sibling, 'activate-revision', activation(siblingPrepared), capOf(bounds.operationMs)),
    ]);
    trial.inventory = plain(inventory);
    trial.sibling = plain(siblingActivation);
    trial.activation = plain(await activating);
  } catch (error) {
    trial.problems.push(`trial could not run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  } finally {
    await stopUnit(link, trickler);
    if (!(await helpersGone(link, 200_000))) trial.problems.push('a helper was still running 200 s after the trial');
  }
  return trial;
}

async function forgedAudit(link: HostLink, forger: Tenant, bounds: TenantBounds): Promise<ForgedAudit> {
  const result: ForgedAudit = {
    forgedWritten: 0,
    forgedInJournal: 0,
    inventory: { who: 'host', operation: 'inventory', ok: false, outcome: 'not run', ms: 0 },
    recentAudit: 0,
    forgedShown: 0,
    realRequests: [],
    realShown: 0,
    problems: [],
  };
  try {
    const prepared = await staged(link, forger);
    // The forged lines are written as the gateway starts; the real ones of this activation and two more calls follow them.
    const real = [
      await must(link, forger, 'activate-revision', activation(prepared)),
      await must(link, forger, 'ensure-namespace', { namespace: forger.owner.namespace }),
      await must(link, forger, 'stop-revision', { owner: forger.owner, revision: prepared.revision }),
    ];
    result.realRequests = real.map((call) => call.requestId!);
    result.forgedWritten = (JSON.parse((await readAsRoot(link, `${forger.layout.state}/forged.json`)) ?? '{"written":0}') as { written: number }).written;
    const journal = await link.exec(['journalctl', `--namespace=+${GATEWAY_LOG_NAMESPACE}`, '--no-pager', '-o', 'cat', '-t', 'occ-ssh-helper']);
    result.forgedInJournal = journal.stdout.split('\n').filter((line) => / request=forged-\d+ /.test(line)).length;
    const inventory = await timed(link, 'host', 'inventory', {}, capOf(bounds.inventoryMs));
    result.inventory = plain(inventory);
    const lines = inventory.ok ? (inventory.result as InventoryResult).recentAudit : [];
    result.recentAudit = lines.length;
    result.forgedShown = lines.filter((line) => /request=forged-/.test(line)).length;
    result.realShown = result.realRequests.filter((id) => lines.some((line) => line.includes(` request=${id} `))).length;
  } catch (error) {
    result.problems.push(`attack could not run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  } finally {
    await stopUnit(link, forger);
  }
  return result;
}

/** Runs every attack in turn on one host; an attack that fails to run is recorded, never thrown. */
export async function runTenants(link: HostLink, plan: TenantPlan, rngHex: (length: number) => string, progress: (line: string) => void): Promise<TenantsResult> {
  const t0 = Date.now();
  const bounds = TENANT_BOUNDS;
  const result: TenantsResult = { plan, bounds, lockCalm: [], lock: [], trickle: [], problems: [], durationMs: 0 };
  const attempt = async (name: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      result.problems.push(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    progress(`hostile-tenants: ${name} done`);
  };
  const siblings: Siblings = { other: new Tenant('other', 'sib'), same: new Tenant('same', 'lock') };
  await attempt('setup', async () => {
    for (const sibling of [siblings.other, siblings.same]) {
      const prepared = await staged(link, sibling);
      await must(link, sibling, 'activate-revision', activation(prepared));
    }
  });

  await attempt('lock holder', async () => {
    const holder = new Tenant('lock', 'lock');
    holder.openclawPath = await installTenantGateway(link, 'tn-lock', lockHolder(`${ROOT}/.compute-lock`));
    // The same calls beside the holder's gateway before it attacks: what they take on this host now.
    const calm = await lockTrial(link, holder, siblings, 'shared', bounds, false);
    result.lockCalm = calm.calls;
    result.problems.push(...calm.problems.map((problem) => `calm lock trial: ${problem}`));
    progress(`hostile-tenants: calm lock trial: ${calm.calls.map((c) => `${c.who} ${c.operation} ${c.ok ? 'ok' : c.code} ${c.ms} ms`).join(', ')}`);
    for (let index = 0; index < plan.lockTrials; index += 1) {
      const trial = await lockTrial(link, holder, siblings, index % 2 === 0 ? 'shared' : 'exclusive', bounds);
      result.lock.push(trial);
      progress(`hostile-tenants: lock trial ${index + 1}: ${trial.attacker}; ${trial.calls.map((c) => `${c.who} ${c.operation} ${c.ok ? 'ok' : c.code} ${c.ms} ms`).join(', ')}`);
    }
  });
  await attempt('trickling /readyz', async () => {
    const trickler = new Tenant('trickle', 'trickle');
    trickler.openclawPath = await installTenantGateway(link, 'tn-trickle', TRICKLER);
    for (let index = 0; index < plan.trickleTrials; index += 1) {
      const trial = await trickleTrial(link, trickler, siblings.other, bounds);
      result.trickle.push(trial);
      progress(
        `hostile-tenants: trickle trial ${index + 1}: ${[trial.activation, trial.inventory, trial.sibling].map((c) => `${c.who} ${c.operation} ${c.ok ? 'ok' : c.code} ${c.ms} ms`).join(', ')}`,
      );
    }
  });
  await attempt('forged audit', async () => {
    const forger = new Tenant('forger', 'audit');
    forger.openclawPath = await installTenantGateway(link, 'tn-forger', auditForger(FORGED_LINES));
    result.forgedAudit = await forgedAudit(link, forger, bounds);
  });
  await attempt('huge trees', async () => {
    result.hugeTrees = await runHugeTrees(link, new Tenant('trees', 'trees'), plan, bounds);
  });
  await attempt('placeholder readers', async () => {
    const victim = new Tenant('victim', 'secret');
    const readers = [new Tenant('reader-same', 'secret'), new Tenant('reader-other', 'sib')];
    result.placeholders = await runPlaceholderReaders(link, victim, readers, `opaque-tenant-${rngHex(24)}`);
  });
  result.durationMs = Date.now() - t0;
  return result;
}
