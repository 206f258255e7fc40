// Polls the gateway's loopback /readyz: fast at first so activation adds little to start-up.
import { request } from 'node:http';
import type { Session } from './session.js';

export function probeReady(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Every 25 ms for the first 3 s (what most gateways need), then backing off to 250 ms. */
export function pollDelay(elapsedMs: number): number {
  return elapsedMs < 3000 ? FAST_POLL_MS : Math.min(250, Math.round(FAST_POLL_MS * 1.5 ** Math.ceil((elapsedMs - 3000) / 500)));
}

const FAST_POLL_MS = 25;

/** Gives up at the deadline or when the session closes. A probe is one loopback request. */
export async function waitReady(port: number, timeoutMs: number, session: Session): Promise<boolean> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  while (Date.now() < deadline && !session.isClosed) {
    if (await probeReady(port, Math.min(1000, Math.max(50, deadline - Date.now())))) return true;
    await new Promise((resolve) => setTimeout(resolve, pollDelay(Date.now() - started)));
  }
  return false;
}
