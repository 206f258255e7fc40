// /readyz of the gateways the host says are running: a served.json or agent.json marker whose unit
// is active must answer 200 on its port.
import { request } from 'node:http';
import type { Entry, UnitInfo } from '../host/listing.js';
import { run, sleep } from './params.js';

function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', timeout: 1500 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** What the served check reads again of a unit whose gateway did not answer: its state, and whether systemd has a job queued for it. */
export interface UnitNow {
  activeState: string;
  jobPending: boolean;
}

/** The host's probe, unit reader and clock; a test hands in its own. */
export interface Probes {
  probe(port: number): Promise<boolean>;
  unitNow(unit: string): Promise<UnitNow>;
  sleep(ms: number): Promise<void>;
}

async function unitNow(unit: string): Promise<UnitNow> {
  const out = (await run('systemctl', ['show', '--property=ActiveState,Job', unit])).stdout;
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(out)?.[1]?.trim() ?? '';
  return { activeState: value('ActiveState') || 'unknown', jobPending: value('Job') !== '' };
}

const HOST: Probes = { probe, unitNow, sleep };

async function probeUntil(probes: Probes, port: number, tries: number): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await probes.probe(port)) return true;
    await probes.sleep(500);
  }
  return false;
}

/** The port of each marker of this name whose Agent's unit the listing read active, with that unit. */
function activeMarkers(entries: Entry[], unitList: UnitInfo[], marker: RegExp): { port: number; unit: string }[] {
  const out: { port: number; unit: string }[] = [];
  for (const e of entries) {
    if (!marker.test(e.path) || !e.text) continue;
    let port: unknown;
    try {
      port = (JSON.parse(e.text) as { port?: unknown }).port;
    } catch {
      continue;
    }
    const unit = unitList.find((u) => u.name === `openclaw-enterprise-gateway-${e.path.split('/')[3]}.service`);
    if (!unit || unit.activeState !== 'active' || typeof port !== 'number') continue;
    out.push({ port, unit: unit.name });
  }
  return out;
}

/** Up to 30 s for systemd to finish what is queued for the unit; then its state as it reads. */
async function settled(probes: Probes, unit: string): Promise<UnitNow & { waited: boolean }> {
  let waited = false;
  for (let i = 0; ; i++) {
    const now = await probes.unitNow(unit);
    if (!now.jobPending || i >= 60) return { ...now, waited };
    waited = true;
    await probes.sleep(500);
  }
}

/**
 * Every served.json whose gateway unit is active must answer /readyz (a gateway may still be
 * starting after a reboot, so each gets a few seconds). A helper cut during a stop exits a short
 * grace after its session closed and leaves the `systemctl disable --now` it began to finish on the
 * host (as a helper killed outright would): on a loaded host the unit can still read active when
 * listed and its gateway stop while probed. So a gateway that does not answer is judged once systemd
 * has nothing queued for its unit: one that no longer runs is `stopped` (stopped while checked, not
 * a gateway that runs unready); one that runs after a job finished is probed again.
 */
export async function servedReady(entries: Entry[], unitList: UnitInfo[], probes: Probes = HOST): Promise<{ ready: Record<string, boolean>; stopped: number[] }> {
  const ready: Record<string, boolean> = {};
  const stopped: number[] = [];
  for (const { port, unit } of activeMarkers(entries, unitList, /^namespaces\/[0-9a-f]{12}\/agents\/[0-9a-f]{12}\/served\.json$/)) {
    if (await probeUntil(probes, port, 20)) {
      ready[port] = true;
      continue;
    }
    const now = await settled(probes, unit);
    if (now.activeState !== 'active') stopped.push(port);
    else ready[port] = now.waited ? await probeUntil(probes, port, 20) : false;
  }
  return { ready, stopped };
}

/** /readyz of every Agent whose unit is active (the convergence check of an activation). */
export async function activeReady(entries: Entry[], unitList: UnitInfo[]): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  for (const { port } of activeMarkers(entries, unitList, /^namespaces\/[0-9a-f]{12}\/agents\/[0-9a-f]{12}\/agent\.json$/)) out[port] = await probeUntil(HOST, port, 6);
  return out;
}
