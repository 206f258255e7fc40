// The rows of the per-call figures: latency, activation overhead, the Ansible cycle and bytes sent.
import type { BenchResults, FigureRow } from './results.js';
import { informational, OP_LABEL, TARGETS } from './row-kinds.js';
import { ratio } from './stats.js';

type Measured = Omit<BenchResults, 'rows'>;

export function latencyRows(results: Measured): FigureRow[] {
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
  return rows;
}

export function activationRows(results: Measured): FigureRow[] {
  return (results.activation?.transports ?? []).flatMap((t) => {
    const b = t.breakdownMedianMs;
    const floor = t.floorMs;
    const overFloor = floor ? ratio(t.overheadMs.median, floor.total) : Number.NaN;
    const floorRow: FigureRow[] =
      floor && t.transport !== 'system-ssh'
        ? [
            {
              figure: 'activation',
              name: `activation overhead vs its measured floor via ${t.transport}`,
              measured: t.overheadMs.median,
              baseline: floor.total,
              unit: 'ms',
              ratio: overFloor,
              target: `≤ ${TARGETS.activationFloor}x the floor`,
              limit: floor.total * TARGETS.activationFloor,
              met: Number.isFinite(overFloor) ? overFloor <= TARGETS.activationFloor : null,
              detail: `floor = reused-connection node -e 0 ${floor.bareNodeMs.median} + systemd's restart ${floor.restartMs} + half a readiness poll ${floor.pollMs}; over it: helper start and work ${Math.round(b.outsideHelperMs + b.helperBeforeRestartMs - floor.bareNodeMs.median)}, poll lag ${b.pollLagMs}, after ready ${b.afterReadyMs}`,
            },
          ]
        : [];
    return [
      {
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
      },
      ...floorRow,
    ];
  });
}

export function ansibleRows({ ansible }: Measured): FigureRow[] {
  if (!ansible) return [];
  const fastest = ansible.ansible.reduce((best, a) => (a.runMs.median < best.runMs.median ? a : best));
  return ansible.driver.map((d) => {
    const speedup = ansible.speedup[d.transport];
    return {
      figure: 'ansible',
      name: `full deploy cycle via ${d.transport} vs Ansible`,
      measured: d.cycleMs.median,
      baseline: fastest.runMs.median,
      unit: 'ms',
      ratio: speedup,
      target: `≥ ${TARGETS.ansible}x faster than Ansible`,
      limit: fastest.runMs.median / TARGETS.ansible,
      met: Number.isFinite(speedup) ? speedup >= TARGETS.ansible : null,
      detail: `Ansible ${fastest.configuration.name} (pipelining ${fastest.configuration.pipelining}, ControlPersist ${fastest.configuration.controlPersist}); ${ansible.speedupExcludingAnsibleStartup[d.transport]}x without Ansible's own ${ansible.emptyPlaybookMs.median} ms start-up`,
    };
  });
}

export function bytesRows({ bytes: b }: Measured): FigureRow[] {
  if (!b) return [];
  const rows: FigureRow[] = [
    {
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
    },
  ];
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
  return rows;
}
