// The shape of bench/results/latest.json.
import type { ActivationResult } from '../scenarios/activation.js';
import type { MeasuredCommit } from '@occ-ssh/test-support';
import type { AnsibleResult } from '../scenarios/ansible.js';
import type { BytesResult } from '../scenarios/bytes.js';
import type { FleetResult } from '../scenarios/fleet.js';
import type { LatencyResult } from '../scenarios/latency.js';
import type { LoadAverage } from '../hosts/machine.js';
import type { Plan } from '../hosts/context.js';
import type { ResourcesResult } from '../scenarios/resources.js';
import type { ConcurrencyResult } from '../scenarios/concurrency.js';
import type { RestartResult } from '../scenarios/restart.js';
import type { ScaleResult } from '../scenarios/scale.js';
import type { ControllerScaleResult } from '../scenarios/controller-scale.js';
import type { StartupResult } from '../scenarios/startup.js';

export const SCENARIOS = ['startup', 'bytes', 'latency', 'activation', 'ansible', 'scale', 'fleet', 'resources', 'restart', 'concurrency', 'controller'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface FigureRow {
  figure: string;
  name: string;
  measured: number;
  baseline: number | null;
  unit: 'ms' | 'bytes' | 'ratio' | 'MiB' | 'count';
  /** measured / baseline, or the figure's own ratio (speed-up, last/first). */
  ratio: number | null;
  target: string;
  /** The largest measured value that meets the target (in the row's unit); null: no target. */
  limit: number | null;
  /** null: no target for this row. */
  met: boolean | null;
  detail: string;
}

export interface BenchResults {
  schema: 1;
  /** The commit the run measured (absent outside a git checkout). */
  commit?: MeasuredCommit;
  startedAt: string;
  finishedAt: string;
  durationS: number;
  plan: Plan;
  machine: {
    cpus: number;
    memoryGiB: number;
    loadAtStart: LoadAverage;
    loadAtEnd: LoadAverage;
    controllerNode: string;
    sshClient: string;
    hostNode: string;
    kernel: string;
  };
  helper: { sha256: string; bytes: number };
  startup?: StartupResult;
  bytes?: BytesResult;
  latency?: LatencyResult;
  activation?: ActivationResult;
  ansible?: AnsibleResult;
  scale?: ScaleResult;
  fleet?: FleetResult;
  resources?: ResourcesResult;
  restart?: RestartResult;
  concurrency?: ConcurrencyResult;
  controller?: ControllerScaleResult;
  rows: FigureRow[];
  errors: { scenario: string; message: string }[];
}
