// The rows of the controller-with-a-thousand-hosts figure: helper runs in flight against the
// documented bound, and the controller's own CPU and memory (fake hosts, said in every row).
import type { BenchResults, FigureRow } from './results.js';
import { informational } from './row-kinds.js';

export function controllerRows({ controller: c }: Omit<BenchResults, 'rows'>): FigureRow[] {
  if (!c) return [];
  const label = `${c.hosts} fake hosts answering the helper's protocol after ${c.answerAfterMs} ms`;
  const inFlight = Math.max(...c.rounds.map((r) => r.maxInFlight));
  return [
    {
      figure: 'controller',
      name: `helper runs in flight at once, one controller, ${c.hosts} hosts`,
      measured: inFlight,
      baseline: null,
      unit: 'count',
      ratio: null,
      target: `≤ ${c.documentedBound} (the documented default bound)`,
      limit: c.documentedBound,
      met: inFlight <= c.documentedBound,
      detail: `${label}; one call per host at once: ${c.rounds.map((r) => `${r.operation} ${r.maxInFlight} in flight, ${r.wallMs} ms`).join('; ')}`,
    },
    informational(
      'controller',
      `controller CPU per operation, ${c.hosts} hosts`,
      Math.max(...c.rounds.map((r) => r.cpuPerOperationMs)),
      'ms',
      `${label}; the controller process alone: ${c.rounds.map((r) => `${r.operation} ${r.cpuPerOperationMs} ms`).join(', ')}`,
    ),
    informational(
      'controller',
      `controller memory with ${c.hosts} hosts, peak RSS`,
      c.rssMiB.peak,
      'MiB',
      `${label}; RSS ${c.rssMiB.before} MiB before the Installation was loaded, ${c.rssMiB.idle} idle with it; each run in flight adds its transport's processes (resources figure)`,
    ),
  ];
}
