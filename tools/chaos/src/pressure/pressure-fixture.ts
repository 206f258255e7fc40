// A clean result of the host-pressure attacks, for the judges' tests to change one outcome at a time.
import type { PressureResults, Timed } from '../hostile-tenants/tenant-results.js';

export const call = (who: string, operation: string, ms: number, change: Partial<Timed> = {}): Timed => ({ who, operation, ok: true, outcome: 'ok', ms, ...change });

export function cleanPressure(): PressureResults {
  return {
    planted: {
      names: 200_000,
      planted: { ms: 5200, names: 200_000 },
      idleStop: call('calm', 'stop-revision', 600),
      deletion: call('planter', 'delete-namespace', 9000),
      stop: call('calm', 'stop-revision', 700),
      stopSentAtMs: 900,
      landed: true,
      problems: [],
    },
    stopper: { quietRedeploy: call('calm', 'redeploy', 2500), redeploy: call('stopper', 'redeploy', 3100), strays: [], leftAfterStop: [], problems: [] },
    flood: {
      entryMiB: 32,
      idle: { requests: 240, failed: 0, p50: 1.2, p99: 3.4, max: 5 },
      flooded: { requests: 230, failed: 0, p50: 1.5, p99: 12, max: 40 },
      entriesStarted: 9,
      entriesSent: 7,
      problems: [],
    },
  };
}
