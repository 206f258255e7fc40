// The host-pressure attacks' results and targets. Every bound is relative to the same work measured
// on the same host without the attack (a ratio, with a floor for noise), so a slower machine moves the
// baseline and the bound together. An attack that did not land (the removal over before the sibling's
// stop was sent, a flood that started nothing) meets no target: it proved nothing. Pure.
import { describeCall, type JournalFlood, type LatencySample, type PlantedNames, type PressureResults, type Stopper } from '../hostile-tenants/tenant-results.js';

export interface PressureBounds {
  /** A sibling's stop during the deletion: at most this many times its stop on the idle host... */
  stopRatio: number;
  /** ...or the idle stop plus this, whichever is larger. */
  stopSlackMs: number;
  /** The stopper's redeploy: at most this many times a quiet gateway's redeploy, or that plus the slack. */
  redeployRatio: number;
  redeploySlackMs: number;
  /** A sibling's /readyz p99 during the flood: at most this many times idle, or idle plus the slack. */
  readyzRatio: number;
  readyzSlackMs: number;
}

export const PRESSURE_BOUNDS: PressureBounds = { stopRatio: 3, stopSlackMs: 2000, redeployRatio: 3, redeploySlackMs: 10_000, readyzRatio: 5, readyzSlackMs: 100 };

/** The p-th percentile (nearest rank) of the latencies; a failed request counts as the slowest. */
export function latencySample(times: readonly number[], failed = 0): LatencySample {
  const sorted = [...times].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  return { requests: sorted.length, failed, p50: rank(50), p99: rank(99), max: sorted[sorted.length - 1] ?? 0 };
}

/** The bound for `idle` under attack: `ratio` times it, or it plus `slack`, whichever is larger. */
export const boundFor = (idle: number, ratio: number, slack: number): number => Math.max(idle * ratio, idle + slack);

export interface PressureTarget {
  name: string;
  met: boolean;
  detail: string;
}

export function pressureTargets(result: PressureResults, b: PressureBounds = PRESSURE_BOUNDS): PressureTarget[] {
  return [plantedTarget(result.planted, b), stopperTarget(result.stopper, b), floodTarget(result.flood, b)];
}

function plantedTarget(p: PlantedNames | undefined, b: PressureBounds): PressureTarget {
  const name = `planted names: a sibling's stop during the deletion waits on no removal (within ${b.stopRatio}x its idle stop, or idle + ${b.stopSlackMs / 1000} s)`;
  if (!p) return { name, met: false, detail: 'did not run' };
  const bound = p.idleStop ? boundFor(p.idleStop.ms, b.stopRatio, b.stopSlackMs) : 0;
  const met = p.problems.length === 0 && p.landed && !!p.idleStop?.ok && !!p.deletion?.ok && !!p.stop?.ok && p.stop.ms <= bound;
  const calls = [
    p.idleStop && `idle: ${describeCall(p.idleStop)}`,
    p.deletion && describeCall(p.deletion),
    p.stop && `during: ${describeCall(p.stop)} (sent ${((p.stopSentAtMs ?? 0) / 1000).toFixed(1)} s into the deletion)`,
  ];
  const detail = [
    p.planted ? `${p.planted.names} names planted in ${(p.planted.ms / 1000).toFixed(1)} s` : `nothing planted (of ${p.names})`,
    ...calls.filter(Boolean),
    `bound ${(bound / 1000).toFixed(1)} s`,
    ...(p.landed ? [] : ['did not land: the deletion answered before the stop was sent']),
    ...p.problems,
  ];
  return { name, met, detail: detail.join('; ') };
}

function stopperTarget(s: Stopper | undefined, b: PressureBounds): PressureTarget {
  const name = `the stopper: its redeploy completes within ${b.redeployRatio}x a quiet redeploy (or that + ${b.redeploySlackMs / 1000} s), no stopped process left`;
  if (!s) return { name, met: false, detail: 'did not run' };
  const bound = s.quietRedeploy ? boundFor(s.quietRedeploy.ms, b.redeployRatio, b.redeploySlackMs) : 0;
  const met = s.problems.length === 0 && !!s.quietRedeploy?.ok && !!s.redeploy?.ok && s.redeploy.ms <= bound && s.strays.length === 0 && s.leftAfterStop.length === 0;
  const detail = [
    s.quietRedeploy && `quiet: ${describeCall(s.quietRedeploy)}`,
    s.redeploy && `stopper: ${describeCall(s.redeploy)}`,
    `bound ${(bound / 1000).toFixed(1)} s`,
    `${s.strays.length} processes of its UID outside its unit after the redeploy${s.strays.length ? ` (${s.strays.slice(0, 3).join(', ')})` : ''}`,
    `${s.leftAfterStop.length} left once its unit stopped${s.leftAfterStop.length ? ` (${s.leftAfterStop.slice(0, 3).join(', ')})` : ''}`,
    ...s.problems,
  ];
  return { name, met, detail: detail.filter(Boolean).join('; ') };
}

function floodTarget(f: JournalFlood | undefined, b: PressureBounds): PressureTarget {
  const name = `memfd journal flood: a sibling's /readyz p99 stays within ${b.readyzRatio}x idle (or idle + ${b.readyzSlackMs} ms)`;
  if (!f) return { name, met: false, detail: 'did not run' };
  const bound = f.idle ? boundFor(f.idle.p99, b.readyzRatio, b.readyzSlackMs) : 0;
  const landed = f.entriesStarted > 0;
  const met = f.problems.length === 0 && landed && !!f.idle && !!f.flooded && f.idle.requests > 0 && f.flooded.requests > 0 && f.flooded.failed === 0 && f.flooded.p99 <= bound;
  const show = (s: LatencySample) => `p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms over ${s.requests} requests${s.failed ? `, ${s.failed} failed` : ''}`;
  const detail = [
    f.idle ? `idle: ${show(f.idle)}` : 'no idle sample',
    f.flooded ? `flooded: ${show(f.flooded)}` : 'no flooded sample',
    `bound ${bound.toFixed(1)} ms`,
    `${f.entriesStarted} entries of ${f.entryMiB} MiB started, ${f.entriesSent} sent${landed ? '' : ' (did not land)'}`,
    ...f.problems,
  ];
  return { name, met, detail: detail.join('; ') };
}
