// One host, many Agents. Each Agent is prepared and activated in turn through the
// driver (openssh-mux, so the connection is not what grows); per-operation time of the first ten
// against the last ten, and the lock hold times the helper reports in `timings.lockHoldMs`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { progress, type BenchContext } from '../hosts/context.js';
import { bindingFor, configurationFor, ObservedDriver, revisionFor, timed, type BenchHost, type Transport } from '../hosts/installation.js';
import { ControlMaster } from '../hosts/ssh.js';
import { median, ratio, summarize, type Summary } from '../report/stats.js';

interface ScaleOperation {
  firstTenMs: Summary;
  lastTenMs: Summary;
  /** Median of the last ten over median of the first ten; the scale target is ≤ 1.2. */
  lastOverFirst: number;
  lockHoldMs: Summary;
  lockWaitMs: Summary;
  allMs: Summary;
}

export interface ScaleResult {
  transport: Transport;
  agents: number;
  readyAfterMs: number;
  prepare: ScaleOperation;
  activate: ScaleOperation;
  /** Every per-Agent time in order, for plots. */
  series: { prepareMs: number[]; activateMs: number[]; prepareLockHoldMs: number[]; activateLockHoldMs: number[] };
  /** `systemctl daemon-reload` timed on the host before the first and after the last Agent. */
  daemonReloadMs: { before: Summary; after: Summary };
  hostMemory: { machineAvailableMiBBefore: number; machineAvailableMiBAfter: number };
  wallMs: number;
}

const NAMESPACE = 'scale';
const TRANSPORT: Transport = 'openssh-mux';

function availableMiB(): number {
  const line =
    readFileSync('/proc/meminfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('MemAvailable:')) ?? '';
  return Math.round(Number(line.replace(/[^0-9]/g, '')) / 1024);
}

async function timeDaemonReload(master: ControlMaster, count: number): Promise<Summary> {
  const script = `for i in $(seq ${count}); do s=$(date +%s%N); systemctl daemon-reload; e=$(date +%s%N); echo $(( (e - s) / 1000 )); done`;
  const micros = (await master.sh(script)).trim().split('\n').map(Number);
  return summarize(micros.map((us) => us / 1000));
}

function operation(ms: number[], hold: number[], wait: number[]): ScaleOperation {
  const first = ms.slice(0, 10);
  const last = ms.slice(-10);
  return {
    firstTenMs: summarize(first),
    lastTenMs: summarize(last),
    lastOverFirst: ratio(median(last), median(first)),
    lockHoldMs: summarize(hold),
    lockWaitMs: summarize(wait),
    allMs: summarize(ms),
  };
}

export async function measureScale(ctx: BenchContext, host: BenchHost): Promise<ScaleResult> {
  const agents = ctx.plan.scaleAgents;
  const master = await ControlMaster.start(host, join(ctx.scratch, 'scale-master'));
  const observed = new ObservedDriver(configurationFor({ [NAMESPACE]: host }, { transport: TRANSPORT, portRange: { start: 18800, end: 19199 } }));
  const memoryBefore = availableMiB();
  const prepareMs: number[] = [];
  const activateMs: number[] = [];
  const holds = { prepare: [] as number[], activate: [] as number[] };
  const waits = { prepare: [] as number[], activate: [] as number[] };
  const started = Date.now();
  try {
    const before = await timeDaemonReload(master, 5);
    const { driver } = observed;
    const first = bindingFor(NAMESPACE, 'scale-001');
    await driver.ensureNamespace(first.namespace);
    await driver.preflight(); // opens the master connection outside the measured calls
    for (let i = 1; i <= agents; i += 1) {
      if (i % 10 === 0) progress(`scale: agent ${i} of ${agents}`);
      const binding = bindingFor(NAMESPACE, `scale-${String(i).padStart(3, '0')}`);
      driver.bindAgent(binding);
      const revision = revisionFor(binding, 1, 0);
      prepareMs.push((await timed(() => driver.prepareRevision(revision))).ms);
      const prepared = observed.last('prepare-revision', revision.id).timings;
      activateMs.push((await timed(() => driver.activateRevision(revision))).ms);
      const activated = observed.last('activate-revision', revision.id).timings;
      holds.prepare.push(prepared?.lockHoldMs ?? Number.NaN);
      waits.prepare.push(prepared?.lockWaitMs ?? Number.NaN);
      holds.activate.push(activated?.lockHoldMs ?? Number.NaN);
      waits.activate.push(activated?.lockWaitMs ?? Number.NaN);
    }
    const wallMs = Date.now() - started;
    const after = await timeDaemonReload(master, 5);
    return {
      transport: TRANSPORT,
      agents,
      readyAfterMs: 0,
      prepare: operation(prepareMs, holds.prepare, waits.prepare),
      activate: operation(activateMs, holds.activate, waits.activate),
      series: { prepareMs: prepareMs.map(Math.round), activateMs: activateMs.map(Math.round), prepareLockHoldMs: holds.prepare, activateLockHoldMs: holds.activate },
      daemonReloadMs: { before, after },
      hostMemory: { machineAvailableMiBBefore: memoryBefore, machineAvailableMiBAfter: availableMiB() },
      wallMs,
    };
  } finally {
    await observed.close();
    master.stop();
  }
}
