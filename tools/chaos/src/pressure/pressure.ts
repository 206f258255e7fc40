// Host-pressure attacks of the hostile-tenants section: compromised gateways that make root's work on
// the host slow for everyone rather than break it. Each measures the same work without the attack on
// the same host first (pressure-judge.ts bounds the attacked figure by it). Planted names: millions
// of names in state/ for the Agent's deletion to remove, while a sibling's stop is sent. The stopper:
// kill(-1, SIGSTOP) in a loop, while the Agent is redeployed. The journal flood: large native entries
// (memfd), while a sibling that logs each request answers /readyz.
import { setTimeout as sleep } from 'node:timers/promises';
import { nsHash } from '@occ-ssh/markers';
import { installTenantGateway, ROOT } from '@occ-ssh/test-support';
import { journalFlooder, namePlanter, READYZ_SAMPLER, REQUEST_LOGGER, STOPPER } from './pressure-gateways.js';
import { latencySample } from './pressure-judge.js';
import type { JournalFlood, LatencySample, PlantedNames, PressureResults, Stopper } from '../hostile-tenants/tenant-results.js';
import { activation, appears, helpersGone, must, plain, readAsRoot, staged, stopUnit, Tenant, timed } from '../hostile-tenants/tenant-calls.js';
import type { Timed } from '../hostile-tenants/tenant-results.js';
import type { HostLink } from '../host/ssh.js';

/** Past its bound a call is capped: long enough to see how it ends. */
const CAP_MS = 120_000;

const failure = (error: unknown) => `attack could not run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;

/** Waits until the tenant's unit is no longer active (its deletion has stopped it); false after `waitMs`. */
async function unitDown(link: HostLink, tenant: Tenant, waitMs: number): Promise<boolean> {
  const tries = Math.ceil(waitMs / 100);
  const script = `i=0; while systemctl is-active --quiet "$1"; do i=$((i+1)); [ $i -ge ${tries} ] && exit 1; sleep 0.1; done`;
  return (await link.exec(['sh', '-c', script, 'down', tenant.layout.unitName], { timeoutMs: waitMs + 30_000 })).code === 0;
}

/**
 * The sibling's stop on the idle host, then the planter's Namespace deleted and, once its unit is down
 * (the deletion is removing what it planted), the sibling's stop again. `calm` runs a gateway here.
 */
export async function runPlantedNames(link: HostLink, calm: Tenant, planter: Tenant, names: number): Promise<PlantedNames> {
  const result: PlantedNames = { names, landed: false, problems: [] };
  const nsDir = `${ROOT}/namespaces/${nsHash(planter.owner.namespace.id)}`;
  try {
    const calmRevision = await staged(link, calm);
    const stopCalm = { owner: calm.owner, revision: calmRevision.revision };
    await must(link, calm, 'activate-revision', activation(calmRevision));
    result.idleStop = plain(await timed(link, calm, 'stop-revision', stopCalm, CAP_MS));
    await must(link, calm, 'activate-revision', activation(calmRevision));
    planter.openclawPath = await installTenantGateway(link, 'tn-planter', namePlanter(names));
    await must(link, planter, 'activate-revision', activation(await staged(link, planter)));
    // About 40,000 names a second as the account on a loaded host: a minute, and a millisecond per 5 names.
    const plantWaitMs = 60_000 + Math.ceil(names / 5);
    if (!(await appears(link, `${planter.layout.state}/planted-names.json`, plantWaitMs))) throw new Error(`the gateway did not finish planting within ${Math.round(plantWaitMs / 1000)} s`);
    result.planted = JSON.parse((await readAsRoot(link, `${planter.layout.state}/planted-names.json`)) ?? '{}') as PlantedNames['planted'];
    const sent = Date.now();
    let answered = false;
    const deleting = timed(link, planter, 'delete-namespace', { namespace: planter.owner.namespace }, CAP_MS * 2).finally(() => (answered = true));
    if (!(await unitDown(link, planter, 60_000))) throw new Error("the deletion did not stop the planter's unit within 60 s");
    result.stopSentAtMs = Date.now() - sent;
    result.landed = !answered;
    const stopping = timed(link, calm, 'stop-revision', stopCalm, CAP_MS);
    [result.stop, result.deletion] = (await Promise.all([stopping, deleting])).map(plain);
  } catch (error) {
    result.problems.push(failure(error));
  } finally {
    await stopUnit(link, planter);
    await helpersGone(link, 300_000);
    // Whatever the deletion managed: its tree, the removal it left (either kind), and the planted names.
    await link.exec(['sh', '-c', `rm -rf ${nsDir} ${ROOT}/namespaces/.deleting-* ${ROOT}/.removing; true`], { timeoutMs: 600_000 });
  }
  return result;
}

/** prepare and activate of the tenant's next revision, timed together as one redeploy. */
async function redeploy(link: HostLink, tenant: Tenant): Promise<Timed> {
  const started = Date.now();
  const prepared = tenant.nextPrepare();
  const prepare = await timed(link, tenant, 'prepare-revision', prepared, CAP_MS);
  if (!prepare.ok) return { ...plain(prepare), operation: 'redeploy (prepare-revision)', ms: Date.now() - started };
  const activate = await timed(link, tenant, 'activate-revision', activation(prepared), CAP_MS);
  return { ...plain(activate), operation: 'redeploy', ms: Date.now() - started };
}

/** `pid stat args` of every process of the account, or only of those outside its unit (`outsideUnit`). */
async function processesOf(link: HostLink, tenant: Tenant, outsideUnit: boolean): Promise<string[]> {
  const outside = outsideUnit ? `grep -q "/$2" /proc/$p/cgroup 2>/dev/null || ` : '';
  const script = `for p in $(pgrep -u "$1"); do ${outside}ps -o pid=,stat=,args= -p $p; done; true`;
  const text = await link.run(['sh', '-c', script, 'ps', tenant.account, tenant.layout.unitName]);
  return text
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' ').slice(0, 120))
    .filter(Boolean);
}

/** A quiet sibling's redeploy, then the stopper's; what of the stopper's UID is left outside its unit, and once its unit stopped. */
export async function runStopper(link: HostLink, calm: Tenant, stopper: Tenant): Promise<Stopper> {
  const result: Stopper = { strays: [], leftAfterStop: [], problems: [] };
  try {
    stopper.openclawPath = await installTenantGateway(link, 'tn-stopper', STOPPER);
    await must(link, stopper, 'activate-revision', activation(await staged(link, stopper)), CAP_MS);
    result.quietRedeploy = await redeploy(link, calm);
    result.redeploy = await redeploy(link, stopper);
    result.strays = await processesOf(link, stopper, true);
  } catch (error) {
    result.problems.push(failure(error));
  } finally {
    await stopUnit(link, stopper);
    await helpersGone(link, 60_000);
    result.leftAfterStop = await processesOf(link, stopper, false).catch(() => ['(could not list)']);
    // SIGKILL reaches a stopped process: nothing of the attacker outlives the attack.
    await link.exec(['pkill', '-KILL', '-u', stopper.account]);
  }
  return result;
}

/** The sibling's /readyz latencies over `durationMs`, a request every 20 ms, after a second of warm-up. */
async function sampleReadyz(link: HostLink, port: number, durationMs: number): Promise<LatencySample> {
  const run = (ms: number) => link.run([link.nodePath, '-e', READYZ_SAMPLER, String(port), String(ms), '20'], { timeoutMs: ms + 120_000 });
  await run(1000);
  const { times, failed } = JSON.parse(await run(durationMs)) as { times: number[]; failed: number };
  return latencySample(times, failed);
}

/** A request-logging sibling's /readyz latencies on the idle host, then while a gateway floods the journal. */
export async function runJournalFlood(link: HostLink, sibling: Tenant, flooder: Tenant, entryMiB: number, sampleMs: number): Promise<JournalFlood> {
  const result: JournalFlood = { entryMiB, entriesStarted: 0, entriesSent: 0, problems: [] };
  try {
    sibling.openclawPath = await installTenantGateway(link, 'tn-logger', REQUEST_LOGGER);
    const activated = await must(link, sibling, 'activate-revision', activation(await staged(link, sibling)));
    const { port } = activated.result as { port: number };
    result.idle = await sampleReadyz(link, port, sampleMs);
    flooder.openclawPath = await installTenantGateway(link, 'tn-flooder', journalFlooder(entryMiB));
    await must(link, flooder, 'activate-revision', activation(await staged(link, flooder)), CAP_MS);
    const counts = `${flooder.layout.state}/flood-count.json`;
    if (!(await appears(link, counts, 30_000))) throw new Error('the flooder started no journal entry within 30 s');
    // One entry under way, so the sample is taken while journald has the flood to read.
    await sleep(1000);
    result.flooded = await sampleReadyz(link, port, sampleMs);
    const count = JSON.parse((await readAsRoot(link, counts)) ?? '{}') as { started?: number; sent?: number };
    result.entriesStarted = count.started ?? 0;
    result.entriesSent = count.sent ?? 0;
  } catch (error) {
    result.problems.push(failure(error));
  } finally {
    await stopUnit(link, flooder);
    await stopUnit(link, sibling);
  }
  return result;
}

export interface PressurePlan {
  plantedNames: number;
  floodEntryMiB: number;
  floodSampleMs: number;
}

/** The three attacks in turn, each beside a quiet sibling; each records what kept it from running, none throws. */
export async function runPressure(link: HostLink, plan: PressurePlan, progress: (line: string) => void): Promise<PressureResults> {
  const t0 = Date.now();
  const calm = new Tenant('calm', 'calm');
  const planted = await runPlantedNames(link, calm, new Tenant('planter', 'planter'), plan.plantedNames);
  progress(`hostile-tenants: planted names done (sibling stop ${planted.idleStop?.ms ?? '-'} ms idle, ${planted.stop?.ms ?? '-'} ms during the deletion)`);
  const stopper = await runStopper(link, calm, new Tenant('stopper', 'stopper'));
  progress(`hostile-tenants: stopper done (redeploy ${stopper.quietRedeploy?.ms ?? '-'} ms quiet, ${stopper.redeploy?.ms ?? '-'} ms stopper)`);
  const flood = await runJournalFlood(link, new Tenant('logger', 'calm'), new Tenant('flooder', 'flooder'), plan.floodEntryMiB, plan.floodSampleMs);
  progress(`hostile-tenants: journal flood done (/readyz p99 ${flood.idle?.p99 ?? '-'} ms idle, ${flood.flooded?.p99 ?? '-'} ms flooded)`);
  return { planted, stopper, flood, durationMs: Date.now() - t0 };
}
