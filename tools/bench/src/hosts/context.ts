// What every scenario shares: the sample plan, a private scratch directory and progress output.
export interface Plan {
  quick: boolean;
  /** Rounds of (operation, baseline) pairs per transport for the latency figures. */
  latencyRounds: number;
  warmupRounds: number;
  activationSamples: number;
  /** Measured Ansible runs per Ansible configuration (after one warm-up run). */
  ansibleRuns: number;
  /** Driver deploy cycles per transport in the Ansible comparison. */
  driverCyclesPerRun: number;
  scaleAgents: number;
  /** Agents whose gateways keep running during the scale figure; older ones are stopped (their units stay). */
  scaleRunning: number;
  fleetHosts: number;
  fleetReps: number;
  startupSamples: number;
  readyAfterMs: number;
  /** Rounds of the restart figure (each about a minute of real gateway starts). */
  restartRounds: number;
}

export function planFor(quick: boolean): Plan {
  return quick
    ? {
        quick,
        latencyRounds: 8,
        warmupRounds: 1,
        activationSamples: 6,
        ansibleRuns: 2,
        driverCyclesPerRun: 2,
        scaleAgents: 30,
        scaleRunning: 10,
        fleetHosts: 8,
        fleetReps: 2,
        startupSamples: 8,
        readyAfterMs: 200,
        restartRounds: 2,
      }
    : {
        quick,
        latencyRounds: 20,
        warmupRounds: 2,
        activationSamples: 15,
        ansibleRuns: 5,
        driverCyclesPerRun: 3,
        scaleAgents: 1000,
        scaleRunning: 100,
        fleetHosts: 8,
        fleetReps: 5,
        startupSamples: 20,
        readyAfterMs: 200,
        restartRounds: 7,
      };
}

export interface BenchContext {
  plan: Plan;
  /** A private directory of this run (also TMPDIR, so transport control sockets live under it). */
  scratch: string;
}

const started = Date.now();

export function progress(message: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}
