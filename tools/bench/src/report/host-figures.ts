// The rows of the per-host figures: many Agents on one host, a fleet, controller resources, the real
// gateway's restart and concurrent activations.
import type { BenchResults, FigureRow } from './results.js';
import { informational, percentileCaveat, row, TARGETS } from './row-kinds.js';
import { median, ratio } from './stats.js';

type Measured = Omit<BenchResults, 'rows'>;

export function scaleRows({ scale: s }: Measured): FigureRow[] {
  if (!s) return [];
  const rows: FigureRow[] = [];
  const along = (op: typeof s.prepare, pick: (w: (typeof op.windows)[number]) => number) => op.windows.map((w) => `${w.agents}: ${pick(w)} ms`).join(', ');
  for (const [name, op] of [
    ['prepare', s.prepare],
    ['activate', s.activate],
  ] as const) {
    const lastHold = op.windows.at(-1)!.lockHoldMs.median;
    const firstHold = op.windows[0]!.lockHoldMs.median;
    rows.push(
      {
        figure: 'scale',
        name: `${name}: last ten of ${s.agents} Agents vs first ten`,
        measured: op.lastTenMs.median,
        baseline: op.firstTenMs.median,
        unit: 'ms',
        ratio: op.lastOverFirst,
        target: `≤ ${TARGETS.scale}x`,
        limit: op.firstTenMs.median * TARGETS.scale,
        met: Number.isFinite(op.lastOverFirst) ? op.lastOverFirst <= TARGETS.scale : null,
        detail: `via ${s.transport}, ${s.running} gateways running; medians ${along(op, (w) => w.ms.median)}`,
      },
      {
        figure: 'scale',
        name: `${name} lock hold: last ten of ${s.agents} Agents vs first ten`,
        measured: lastHold,
        baseline: firstHold,
        unit: 'ms',
        ratio: op.lockHoldLastOverFirst,
        target: `≤ ${TARGETS.scale}x`,
        limit: firstHold * TARGETS.scale,
        met: Number.isFinite(op.lockHoldLastOverFirst) ? op.lockHoldLastOverFirst <= TARGETS.scale : null,
        detail: `medians ${along(op, (w) => w.lockHoldMs.median)}; p99 of all ${op.lockHoldMs.p99} ms${name === 'prepare' && s.useraddMs ? `; useradd alone ${s.useraddMs.before.median} -> ${s.useraddMs.after.median} ms (the row below)` : ''}`,
      },
    );
  }
  rows.push(...useraddRows(s));
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
  if (s.inventory) {
    rows.push({
      figure: 'scale',
      name: `inventory of ${s.inventory.agents} Agents`,
      measured: s.inventory.ms.median,
      baseline: null,
      unit: 'ms',
      ratio: null,
      target: `< ${TARGETS.inventoryMs} ms`,
      limit: TARGETS.inventoryMs,
      met: s.inventory.ms.median < TARGETS.inventoryMs,
      detail: `${s.running} running; median of ${s.inventory.ms.n}, max ${s.inventory.ms.max} ms, through the driver`,
    });
  }
  if (s.systemRangeFreeAccountIds !== undefined && s.systemRangeFreeAccountIds !== null) {
    rows.push(
      informational(
        'scale',
        "Agent accounts the host's system ID range had room for",
        s.systemRangeFreeAccountIds,
        'count',
        'login.defs SYS_UID range as the probe counts it; the run used runtime.accountIdRange',
      ),
    );
  }
  return rows;
}

/** useradd alone before the first Agent and after the last: the growth in prepare's lock hold that is shadow's own. */
function useraddRows(s: NonNullable<Measured['scale']>): FigureRow[] {
  if (!s.useraddMs) return [];
  const { before, after } = s.useraddMs;
  const hold = s.prepare.windows;
  const driverOnly = ratio(hold.at(-1)!.lockHoldMs.median - (after.median - before.median), hold[0]!.lockHoldMs.median);
  return [
    {
      ...informational(
        'scale',
        `useradd alone (the helper's options): with ${s.agents} Agent accounts vs none`,
        after.median,
        'ms',
        `run on the host before the first Agent and after the last, 5 each; prepare's lock hold without that growth: ${driverOnly}x`,
      ),
      baseline: before.median,
      ratio: ratio(after.median, before.median),
    },
  ];
}

export function fleetRows({ fleet, machine }: Measured): FigureRow[] {
  return (fleet?.transports ?? []).map((t) => ({
    figure: 'fleet',
    name: `${fleet!.hosts} hosts in parallel via ${t.transport}`,
    measured: t.allHostsMs.median,
    baseline: t.oneHostMs.median,
    unit: 'ms',
    ratio: t.ratio,
    target: `≤ ${TARGETS.fleet}x one host`,
    limit: t.oneHostMs.median * TARGETS.fleet,
    met: Number.isFinite(t.ratio) ? t.ratio <= TARGETS.fleet : null,
    detail: `prepare + activate; n=${t.allHostsMs.n}; CPU per deploy ${t.oneHostCpuMs?.median ?? '?'} ms on one host, ${t.allHostsCpuMs?.median ?? '?'} ms for all: on ${machine.cpus} shared cores no run can beat ${t.cpuFloorMs ?? '?'} ms (${t.overFloor ?? '?'}x of that floor)`,
  }));
}

export function resourcesRows({ resources }: Measured): FigureRow[] {
  return (resources?.transports ?? []).flatMap((t) => {
    const level = t.levels.find((l) => l.inFlight === 8) ?? t.levels[0];
    const top = t.levels.at(-1);
    if (!level || !top) return [];
    return [
      informational(
        'resources',
        `controller CPU per operation via ${t.transport}`,
        level.cpuPerOperationMs,
        'ms',
        `${level.inFlight} in flight: node ${level.selfCpuPerOperationMs} + ssh ${level.sshCpuPerOperationMs} ms; ${top.inFlight} in flight: ${top.cpuPerOperationMs} ms`,
      ),
      informational(
        'resources',
        `controller memory per in-flight operation via ${t.transport}`,
        top.extraRssPerInFlightMiB,
        'MiB',
        `${top.inFlight} in flight: +${top.extraRssMiB} MiB RSS (peak +${top.peakExtraRssMiB}); idle between calls: ${t.idle.sshProcesses} ssh master(s), ${t.idle.sshRssMiB} MiB`,
      ),
    ];
  });
}

export function restartRows({ restart }: Measured): FigureRow[] {
  if (!restart) return [];
  const [warm, cold, unit, plain] = [median(restart.warmMs), median(restart.coldMs), median(restart.unitWarmMs), median(restart.plainWarmMs)];
  const rows = [
    row(
      'restart',
      'real OpenClaw restart-to-ready, warm compile cache vs cold (driver)',
      warm,
      cold,
      TARGETS.restartWarm,
      `medians of ${restart.rounds}: warm ${restart.warmMs.join(', ')} ms; cold ${restart.coldMs.join(', ')} ms`,
    ),
    row(
      'restart',
      'real OpenClaw warm start, unit vs plain process (on the host)',
      unit,
      plain,
      TARGETS.restartUnit,
      `medians of ${restart.rounds}: unit ${restart.unitWarmMs.join(', ')} ms; plain ${restart.plainWarmMs.join(', ')} ms`,
    ),
  ];
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
  return rows;
}

export function concurrencyRows({ concurrency }: Measured): FigureRow[] {
  if (!concurrency) return [];
  const slowest = Math.max(...concurrency.concurrentMs);
  return [
    row(
      'concurrency',
      `${concurrency.agents} concurrent activations vs one (slowest)`,
      slowest,
      concurrency.singleMs,
      TARGETS.concurrency,
      `gateway ready ${concurrency.readyAfterMs} ms after start; ${concurrency.concurrentMs.join(', ')} ms; lock hold ${concurrency.lockHoldMs.join(', ')} ms${concurrency.failures.length ? `; failed: ${concurrency.failures.join(', ')}` : ''}`,
    ),
  ];
}
