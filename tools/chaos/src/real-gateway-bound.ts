// How long the secrets section lets the real OpenClaw gateway take to answer /readyz on this machine.
// An activation may wait at most the protocol's 120 s, and on a fresh, slower machine the real
// gateway's first start (its compile cache empty) took longer: the section then failed whole and
// produced no results. So the machine is measured first: the real OpenClaw's `--version` as an
// unprivileged account (loading its code, which also warms the page cache). Its gateway's cold start
// took 8 times that on the idle developers' machine (10.3 s against 1.3 s) and over 37 times under the
// load of six engineers' test hosts (over 60 s against 1.6 s); the section expects 40 times. It always
// waits the full 120 s, says beforehand when the measured machine is too slow for that, and a native
// part that fails is a problem of its own, not the end of the section.
import { MAX_READINESS_TIMEOUT_MS } from '@occ-ssh/protocol';
import type { HostLink } from './ssh.js';

export const START_MULTIPLE = 40;

export interface RealGatewayBound {
  /** `openclaw --version` as measured on this host. */
  versionMs: number;
  /** What its gateway's cold start is expected to need here. */
  expectedStartMs: number;
  /** The activation's readinessTimeoutMs: the most an activation may wait. */
  readinessMs: number;
  /** Set when the expected start is longer than an activation may wait. */
  tooSlow?: string;
}

export function realGatewayBound(versionMs: number): RealGatewayBound {
  const expectedStartMs = START_MULTIPLE * versionMs;
  const readinessMs = MAX_READINESS_TIMEOUT_MS;
  const tooSlow =
    expectedStartMs > readinessMs
      ? `the real OpenClaw's --version took ${versionMs} ms here, so its gateway's cold start may need ${Math.round(expectedStartMs / 1000)} s, more than the ${readinessMs / 1000} s an activation may wait`
      : undefined;
  return { versionMs, expectedStartMs, readinessMs, ...(tooSlow ? { tooSlow } : {}) };
}

/** Runs the real OpenClaw's `--version` as nobody, twice (the first warms the page cache), and takes the second. */
export async function measureRealGateway(link: HostLink): Promise<RealGatewayBound> {
  let ms = 0;
  for (let i = 0; i < 2; i += 1) {
    const started = Date.now();
    const run = await link.exec(['runuser', '-u', 'nobody', '--', link.nodePath, link.host.openclawPath, '--version'], { timeoutMs: 600_000 });
    ms = Date.now() - started;
    if (run.code !== 0) throw new Error(`the real OpenClaw's --version exited ${String(run.code)}: ${run.stderr.trim().slice(0, 200)}`);
  }
  return realGatewayBound(ms);
}
