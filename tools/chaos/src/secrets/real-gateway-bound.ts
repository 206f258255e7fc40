// How long the secrets section lets the real OpenClaw gateway take to answer /readyz, and what it
// records of the machine. An activation may wait at most the protocol's 120 s; the real gateway's cold
// start (its compile cache empty) took 10 s on the idle developers' machine and more than 120 s on a
// fresh, slower machine and on a machine loaded by other test hosts (load average 15 on 2 cores). No
// multiple of a measurement predicts it under such load, so the section gives it the full 120 s,
// measures the machine first (the real OpenClaw's `--version` as `nobody`, which also warms the page
// cache, and the load average), and a native part that fails says so with those figures: it is that
// part's problem, and the rest of the section still runs and is judged.
import { loadavg } from 'node:os';
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
  return `the real OpenClaw's --version took ${start.versionMs} ms here at load average ${start.load}; its gateway had ${start.readinessMs / 1000} s, the most an activation may wait`;
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
