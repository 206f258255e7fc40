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

/** Backoff from 20 ms to 250 ms; gives up at the deadline or when the session closes. */
export async function waitReady(port: number, timeoutMs: number, session: Session): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let delay = 20;
  while (Date.now() < deadline && !session.isClosed) {
    if (await probeReady(port, Math.min(1000, Math.max(50, deadline - Date.now())))) return true;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(250, Math.round(delay * 1.5));
  }
  return false;
}
