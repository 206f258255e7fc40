// How long the secrets section lets the real OpenClaw gateway take to answer /readyz, and what it
// records of the machine. An activation may wait at most the protocol's 120 s; the real gateway's cold
// start (its compile cache empty) took 10 s on the idle developers' machine and more than 120 s on a
// fresh, slower machine and on a machine loaded by other test hosts (load average 15 on 2 cores). No
// multiple of a measurement predicts it under such load, so the section gives it the full 120 s,
// and, as OCC does with a retryable failure, activates again when one ends not-ready (the full
// campaign's lanes held the load at 20 while its first start passed 120 s). It measures the machine
// first (the real OpenClaw's `--version` as `nobody`, which also warms the page cache, and the load
// average), and a native part that fails still says so with those figures: it is that part's
// problem, and the rest of the section still runs and is judged.
import { loadavg } from 'node:os';
import { ComputeError } from '@occ-ssh/controller';
import { MAX_READINESS_TIMEOUT_MS } from '@occ-ssh/protocol';
import type { HostLink } from '../host/ssh.js';

export interface RealGatewayStart {
  /** `openclaw --version` as `nobody` on this host, the second of two runs. */
  versionMs: number;
  /** The one-minute load average when it was measured (the test hosts share this kernel). */
  load: number;
  /** The activation's readinessTimeoutMs: the most an activation may wait. */
  readinessMs: number;
}

export function realGatewayStart(versionMs: number, load: number): RealGatewayStart {
  return { versionMs, load: Math.round(load * 10) / 10, readinessMs: MAX_READINESS_TIMEOUT_MS };
}

/** The figures a failed native part is reported with. */
export function describeStart(start: RealGatewayStart): string {
  return `the real OpenClaw's --version took ${start.versionMs} ms here at load average ${start.load}; its gateway had ${start.readinessMs / 1000} s, the most an activation may wait, in each of ${ACTIVATION_ATTEMPTS} activations`;
}

/** Activations of the real gateway before its part fails: the first and two retries, as OCC would retry. */
const ACTIVATION_ATTEMPTS = 3;

/**
 * Runs `activate` until it succeeds, again only after a retryable not-ready (OCC's own retry of a
 * retryable failure), at most ACTIVATION_ATTEMPTS times; anything else, or the last not-ready, is thrown.
 */
export async function activateWithRetries<T>(activate: () => Promise<T>, retried: (attempt: number, error: ComputeError) => void): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await activate();
    } catch (error) {
      const notReady = error instanceof ComputeError && error.code === 'not-ready' && error.retryable;
      if (!notReady || attempt >= ACTIVATION_ATTEMPTS) throw error;
      retried(attempt, error);
    }
  }
}

/** Runs the real OpenClaw's `--version` as nobody, twice (the first warms the page cache), and takes the second. */
export async function measureRealGateway(link: HostLink): Promise<RealGatewayStart> {
  let ms = 0;
  for (let i = 0; i < 2; i += 1) {
    const started = Date.now();
    const run = await link.exec(['runuser', '-u', 'nobody', '--', link.nodePath, link.host.openclawPath, '--version'], { timeoutMs: 600_000 });
    ms = Date.now() - started;
    if (run.code !== 0) throw new Error(`the real OpenClaw's --version exited ${String(run.code)}: ${run.stderr.trim().slice(0, 200)}`);
  }
  return realGatewayStart(ms, loadavg()[0] ?? 0);
}
