// /readyz of the gateways the host says are running: a served.json or agent.json marker whose unit
// is active must answer 200 on its port.
import { request } from 'node:http';
import type { Entry, UnitInfo } from '../host/listing.js';
import { sleep } from './params.js';

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

async function probeUntil(port: number, tries: number): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await probe(port)) return true;
    await sleep(500);
  }
  return false;
}

/** The port in each marker of this name whose Agent's unit is active, probed up to `tries` times. */
async function readyOf(entries: Entry[], unitList: UnitInfo[], marker: RegExp, tries: number): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
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
    out[port] = await probeUntil(port, tries);
  }
  return out;
}

// Every served.json whose gateway unit is active must answer /readyz (a gateway may still be
// starting after a reboot, so each gets a few seconds).
export const servedReady = (entries: Entry[], unitList: UnitInfo[]) => readyOf(entries, unitList, /^namespaces\/[0-9a-f]{12}\/agents\/[0-9a-f]{12}\/served\.json$/, 20);

/** /readyz of every Agent whose unit is active (the convergence check of an activation). */
export const activeReady = (entries: Entry[], unitList: UnitInfo[]) => readyOf(entries, unitList, /^namespaces\/[0-9a-f]{12}\/agents\/[0-9a-f]{12}\/agent\.json$/, 6);
