// The figures against their targets, as rows (kept in the JSON) and as a printed table.
import type { FigureRow, BenchResults } from './results.js';
import { median, ratio } from './stats.js';

const TARGETS = {
  latencyNewConnection: 1.15,
  latencyReusedConnection: 2,
  activationMs: 150,
  ansible: 5,
  scale: 1.2,
  scaleLockMs: 100,
  fleet: 1.5,
  restartWarm: 0.88,
  restartUnit: 1.1,
  concurrency: 1.3,
} as const;

const OP_LABEL: Record<string, string> = { probe: 'probe', 'verify-revision': 'verify-revision', 'prepare-revision': 'prepare-revision (idempotent)' };

export function figureRows(results: Omit<BenchResults, 'rows'>): FigureRow[] {
  const rows: FigureRow[] = [];
  for (const t of results.latency?.transports ?? []) {
    for (const [op, value] of Object.entries(t.operations)) {
      const r = ratio(value.ms.median, t.baselineMs.median);
      const a = t.transport === 'system-ssh';
      const limit = a ? TARGETS.latencyNewConnection : TARGETS.latencyReusedConnection;
      rows.push({
        figure: a ? 'latency' : 'latency-reused',
        name: `${OP_LABEL[op] ?? op} via ${t.transport}`,
        measured: value.ms.median,
        baseline: t.baselineMs.median,
        unit: 'ms',
        ratio: r,
        target: `≤ ${limit}x ssh ${a ? 'new connection' : 'reused connection'} node -e 0`,
        limit: t.baselineMs.median * limit,
        met: Number.isFinite(r) ? r <= limit : null,
        detail: `helper's own time ${value.helperTotalMs.median} ms; n=${value.ms.n}`,
      });
    }
  }
  for (const t of results.activation?.transports ?? []) {
    const b = t.breakdownMedianMs;
    rows.push({
      figure: 'activation',
      name: `activation overhead via ${t.transport}`,
      measured: t.overheadMs.median,
      baseline: t.gatewayStartToReadyMs.median,
      unit: 'ms',
      ratio: null,
      target: `≤ ${TARGETS.activationMs} ms over the gateway's own start-to-ready`,
      limit: TARGETS.activationMs,
      met: t.overheadMs.median <= TARGETS.activationMs,
      detail: `activation ${t.activationMs.median} ms = before restart ${b.beforeRestartMs} (outside the helper ${b.outsideHelperMs}) + restart ${b.restartMs} + gateway ${b.gatewayStartToReadyMs} + poll lag ${b.pollLagMs} + after ready ${b.afterReadyMs}; n=${t.activationMs.n}`,
    });
  }
  if (results.ansible) {
    const fastest = results.ansible.ansible.reduce((best, a) => (a.runMs.median < best.runMs.median ? a : best));
    for (const d of results.ansible.driver) {
      const speedup = results.ansible.speedup[d.transport];
      rows.push({
        figure: 'ansible',
        name: `full deploy cycle via ${d.transport} vs Ansible`,
        measured: d.cycleMs.median,
        baseline: fastest.runMs.median,
        unit: 'ms',
        ratio: speedup,
        target: `≥ ${TARGETS.ansible}x faster than Ansible`,
        limit: fastest.runMs.median / TARGETS.ansible,
        met: Number.isFinite(speedup) ? speedup >= TARGETS.ansible : null,
        detail: `Ansible ${fastest.configuration.name} (pipelining ${fastest.configuration.pipelining}, ControlPersist ${fastest.configuration.controlPersist}); ${results.ansible.speedupExcludingAnsibleStartup[d.transport]}x without Ansible's own ${results.ansible.emptyPlaybookMs.median} ms start-up`,
      });
    }
  }
  if (results.bytes) {
    const b = results.bytes;
    rows.push({
      figure: 'bytes',
      name: 'helper artifact sent per operation',
      measured: b.artifactBytes,
      baseline: b.limitBytes,
      unit: 'bytes',
      ratio: ratio(b.artifactBytes, b.limitBytes),
      target: '≤ 64 KiB',
      limit: b.limitBytes,
      met: b.artifactBytes <= b.limitBytes,
      detail: `brotli loader around a ${b.bundleBytes}-byte bundle`,
    });
    const largest = b.perOperation.reduce((max, op) => (op.totalBytes > max.totalBytes ? op : max), b.perOperation[0]!);
    if (largest) {
      rows.push(
        informational(
          'bytes',
          `largest send: ${largest.operation}`,
          largest.totalBytes,
          'bytes',
          `artifact ${largest.artifactBytes} + sealed operation ${largest.operationBytes} + header argument ${largest.argumentBytes} + node path`,
        ),
      );
    }
  }
  if (results.scale) {
    const s = results.scale;
    for (const [name, op] of [
      ['prepare', s.prepare],
      ['activate', s.activate],
    ] as const) {
      rows.push({
        figure: 'scale',
        name: `${name}: last ten of ${s.agents} Agents vs first ten`,
        measured: op.lastTenMs.median,
        baseline: op.firstTenMs.median,
        unit: 'ms',
        ratio: op.lastOverFirst,
        target: `≤ ${TARGETS.scale}x`,
        limit: op.firstTenMs.median * TARGETS.scale,
        met: Number.isFinite(op.lastOverFirst) ? op.lastOverFirst <= TARGETS.scale : null,
        detail: `via ${s.transport}`,
      });
    }
    rows.push({
      figure: 'scale',
      name: 'prepare lock hold p99',
      measured: s.prepare.lockHoldMs.p99,
      baseline: null,
      unit: 'ms',
      ratio: null,
      target: `< ${TARGETS.scaleLockMs} ms`,
      limit: TARGETS.scaleLockMs,
      met: s.prepare.lockHoldMs.p99 < TARGETS.scaleLockMs,
      detail: `p50 ${s.prepare.lockHoldMs.median} ms, max ${s.prepare.lockHoldMs.max} ms of ${s.prepare.lockHoldMs.n}${percentileCaveat(s.prepare.lockHoldMs.n)}; activate lock hold p50 ${s.activate.lockHoldMs.median} / p99 ${s.activate.lockHoldMs.p99} ms`,
    });
  }
  for (const t of results.fleet?.transports ?? []) {
    rows.push({
      figure: 'fleet',
      name: `${results.fleet!.hosts} hosts in parallel via ${t.transport}`,
      measured: t.allHostsMs.median,
      baseline: t.oneHostMs.median,
      unit: 'ms',
      ratio: t.ratio,
      target: `≤ ${TARGETS.fleet}x one host`,
      limit: t.oneHostMs.median * TARGETS.fleet,
      met: Number.isFinite(t.ratio) ? t.ratio <= TARGETS.fleet : null,
      detail: `prepare + activate; n=${t.allHostsMs.n}; CPU per deploy ${t.oneHostCpuMs?.median ?? '?'} ms on one host, ${t.allHostsCpuMs?.median ?? '?'} ms for all: on ${results.machine.cpus} shared cores no run can beat ${t.cpuFloorMs ?? '?'} ms (${t.overFloor ?? '?'}x of that floor)`,
    });
  }
  for (const t of results.resources?.transports ?? []) {
    const level = t.levels.find((l) => l.inFlight === 8) ?? t.levels[0];
    const top = t.levels.at(-1);
    if (!level || !top) continue;
    rows.push(
      informational(
        'resources',
        `controller CPU per operation via ${t.transport}`,
        level.cpuPerOperationMs,
        'ms',
        `${level.inFlight} in flight: node ${level.selfCpuPerOperationMs} + ssh ${level.sshCpuPerOperationMs} ms; ${top.inFlight} in flight: ${top.cpuPerOperationMs} ms`,
      ),
    );
    rows.push(
      informational(
        'resources',
        `controller memory per in-flight operation via ${t.transport}`,
        top.extraRssPerInFlightMiB,
        'MiB',
        `${top.inFlight} in flight: +${top.extraRssMiB} MiB RSS (peak +${top.peakExtraRssMiB}); idle between calls: ${t.idle.sshProcesses} ssh master(s), ${t.idle.sshRssMiB} MiB`,
      ),
    );
  }
  const restart = results.restart;
  if (restart) {
    const [warm, cold, unit, plain] = [median(restart.warmMs), median(restart.coldMs), median(restart.unitWarmMs), median(restart.plainWarmMs)];
    rows.push(
      row(
        'restart',
        'real OpenClaw restart-to-ready, warm compile cache vs cold (driver)',
        warm,
        cold,
        TARGETS.restartWarm,
        `medians of ${restart.rounds}: warm ${restart.warmMs.join(', ')} ms; cold ${restart.coldMs.join(', ')} ms`,
      ),
    );
    rows.push(
      row(
        'restart',
        'real OpenClaw warm start, unit vs plain process (on the host)',
        unit,
        plain,
        TARGETS.restartUnit,
        `medians of ${restart.rounds}: unit ${restart.unitWarmMs.join(', ')} ms; plain ${restart.plainWarmMs.join(', ')} ms`,
      ),
    );
    const sandboxOff = restart.sandboxOffWarmMs ?? [];
    if (sandboxOff.length)
      rows.push({
        figure: 'restart',
        name: 'real OpenClaw warm start, unit with its sandbox vs without (on the host)',
        measured: unit,
        baseline: median(sandboxOff),
        unit: 'ms',
        ratio: ratio(unit, median(sandboxOff)),
        target: '(informational)',
        limit: null,
        met: null,
        detail: `medians of ${restart.rounds}: without sandbox ${sandboxOff.join(', ')} ms`,
      });
    rows.push(
      informational(
        'restart',
        'cutover interruption: last /readyz 200 of the old process to the first of the new',
        median(restart.cutoverGapMs),
        'ms',
        `${restart.cutoverGapMs.join(', ')} ms, polled every 50 ms`,
      ),
    );
  }
  const concurrency = results.concurrency;
  if (concurrency) {
    const slowest = Math.max(...concurrency.concurrentMs);
    rows.push(
      row(
        'concurrency',
        `${concurrency.agents} concurrent activations vs one (slowest)`,
        slowest,
        concurrency.singleMs,
        TARGETS.concurrency,
        `gateway ready ${concurrency.readyAfterMs} ms after start; ${concurrency.concurrentMs.join(', ')} ms; lock hold ${concurrency.lockHoldMs.join(', ')} ms${concurrency.failures.length ? `; failed: ${concurrency.failures.join(', ')}` : ''}`,
      ),
    );
  }
  return rows;
}

function formatValue(value: number | null, unit: FigureRow['unit']): string {
  if (value === null || !Number.isFinite(value)) return '-';
  if (unit === 'bytes') return `${value} B`;
  if (unit === 'MiB') return `${value} MiB`;
  if (unit === 'ratio') return `${value}x`;
  return `${Math.round(value)} ms`;
}

function tableCells(row: FigureRow): string[] {
  return [
    row.figure,
    row.name,
    formatValue(row.measured, row.unit),
    formatValue(row.baseline, row.unit),
    row.ratio === null || !Number.isFinite(row.ratio) ? '-' : `${row.ratio}x`,
    row.target,
    row.met === null ? '' : row.met ? 'met' : 'NOT met',
  ];
}

const HEADER = ['fig', 'measurement', 'measured', 'baseline', 'ratio', 'target', 'result'];

export function textTable(rows: readonly FigureRow[]): string {
  const cells = [HEADER, ...rows.map(tableCells)];
  const widths = HEADER.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The table of docs/benchmarks.md. Hand-written: markdown-table writes `-` delimiters and `| |` for an
 * empty cell and does not escape `|`, so it would change every table already published. */
export function markdownTable(rows: readonly FigureRow[]): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const lines = [`| ${HEADER.join(' | ')} |`, `| ${HEADER.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${tableCells(row).map(escape).join(' | ')} |`);
  return lines.join('\n');
}

/** A p99 of fewer than 100 samples is an interpolation next to the largest one: say so. */
function percentileCaveat(n: number): string {
  return n < 100 ? ` (with ${n} samples the p99 is close to the maximum)` : '';
}

/** A row whose target is a ratio of its measured value to its baseline. */
function row(figure: string, name: string, measured: number, baseline: number, limit: number, detail: string): FigureRow {
  const r = ratio(measured, baseline);
  return { figure, name, measured, baseline, unit: 'ms', ratio: r, target: `≤ ${limit}x`, limit: baseline * limit, met: Number.isFinite(r) ? r <= limit : null, detail };
}

/** A row reported as measured, with no target to meet. */
function informational(figure: string, name: string, measured: number, unit: FigureRow['unit'], detail: string): FigureRow {
  return { figure, name, measured, baseline: null, unit, ratio: null, target: '(informational)', limit: null, met: null, detail };
}
