// One host, many Agents. Each Agent is prepared and activated in turn through the driver
// (openssh-mux, so the connection is not what grows); the newest `scaleRunning` gateways keep running
// and older ones are stopped, their units left in place. Per-operation time and lock hold of the
// first ten, the ten around the hundredth and the last ten, `inventory` of them all, and how many
// Agents the host's system ID range would have held (the run itself uses `runtime.accountIdRange`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok } from '@occ-ssh/test-support';
import { progress, type BenchContext } from '../hosts/context.js';
import { bindingFor, configurationFor, ObservedDriver, revisionFor, timed, type BenchHost, type Transport } from '../hosts/installation.js';
import { ControlMaster } from '../hosts/ssh.js';
import { ratio, summarize, type Summary } from '../report/stats.js';
import type { TestHost } from '@occ-ssh/testhost';

/** Ten consecutive Agents' figures: their times and the lock hold the helper reported. */
interface Window {
  agents: string;
  ms: Summary;
  lockHoldMs: Summary;
}

interface ScaleOperation {
  firstTenMs: Summary;
  lastTenMs: Summary;
  /** Median of the last ten over median of the first ten; the scale target is ≤ 1.2. */
  lastOverFirst: number;
  /** The same for the lock hold; the scale target is ≤ 1.2 as well. */
  lockHoldLastOverFirst: number;
  windows: Window[];
  lockHoldMs: Summary;
  lockWaitMs: Summary;
  allMs: Summary;
}

export interface ScaleResult {
  transport: Transport;
  agents: number;
  running: number;
  readyAfterMs: number;
  prepare: ScaleOperation;
  activate: ScaleOperation;
  /** `inventory` of the Namespace holding every Agent, after the last one. */
  inventory: { agents: number; ms: Summary };
  /** New Agent accounts the host's system ID range (login.defs) had room for, as the probe counts them. */
  systemRangeFreeAccountIds: number | null;
  /** Every per-Agent time in order, for plots. */
  series: { prepareMs: number[]; activateMs: number[]; prepareLockHoldMs: number[]; activateLockHoldMs: number[] };
  /** `systemctl daemon-reload` timed on the host before the first and after the last Agent. */
  daemonReloadMs: { before: Summary; after: Summary };
  /**
   * `useradd` of a throwaway account with the helper's own options (the run's ID range), timed on the
   * host before the first Agent and after the last: the part of prepare's lock hold that shadow's
   * rewrite of /etc/passwd, shadow, group and gshadow makes grow, whatever the driver does.
   */
  useraddMs?: { before: Summary; after: Summary };
  hostMemory: { machineAvailableMiBBefore: number; machineAvailableMiBAfter: number };
  wallMs: number;
}

const NAMESPACE = 'scale';
const TRANSPORT: Transport = 'openssh-mux';
const INVENTORY_ROUNDS = 3;

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

/** Times useradd and userdel of one throwaway account `count` times; only useradd is reported. */
async function timeUseradd(master: ControlMaster, count: number, range: { start: number; end: number }): Promise<Summary> {
  const ids = `--key UID_MIN=${range.start} --key UID_MAX=${range.end} --key GID_MIN=${range.start} --key GID_MAX=${range.end} --key SUB_UID_COUNT=0 --key SUB_GID_COUNT=0`;
  const add = `useradd ${ids} --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --comment bench occ-bench-useradd`;
  const script = `for i in $(seq ${count}); do s=$(date +%s%N); ${add}; e=$(date +%s%N); userdel occ-bench-useradd; echo $(( (e - s) / 1000 )); done`;
  const micros = (await master.sh(script)).trim().split('\n').map(Number);
  return summarize(micros.map((us) => us / 1000));
}

/** Ten Agents from the `from`-th (1-based), or fewer at the end. */
function window(ms: number[], hold: number[], from: number): Window {
  const slice = (values: number[]) => values.slice(from - 1, from + 9);
  return { agents: `${from}-${Math.min(from + 9, ms.length)}`, ms: summarize(slice(ms)), lockHoldMs: summarize(slice(hold)) };
}

function operation(ms: number[], hold: number[], wait: number[]): ScaleOperation {
  const first = window(ms, hold, 1);
  const last = window(ms, hold, Math.max(1, ms.length - 9));
  const middle = ms.length >= 110 ? [window(ms, hold, 91)] : [];
  return {
    firstTenMs: first.ms,
    lastTenMs: last.ms,
    lastOverFirst: ratio(last.ms.median, first.ms.median),
    lockHoldLastOverFirst: ratio(last.lockHoldMs.median, first.lockHoldMs.median),
    windows: [first, ...middle, last],
    lockHoldMs: summarize(hold),
    lockWaitMs: summarize(wait),
    allMs: summarize(ms),
  };
}

export async function measureScale(ctx: BenchContext, host: BenchHost & TestHost): Promise<ScaleResult> {
  const agents = ctx.plan.scaleAgents;
  const running = ctx.plan.scaleRunning;
  const master = await ControlMaster.start(host, join(ctx.scratch, 'scale-master'));
  // Ports and account IDs for every Agent: the system ID range holds fewer than 900.
  const portRange = { start: 18800, end: 18800 + agents + 99 };
  const accountIdRange = { start: 20000, end: 20000 + agents + 99 };
  const observed = new ObservedDriver(configurationFor({ [NAMESPACE]: host }, { transport: TRANSPORT, portRange, accountIdRange }));
  const memoryBefore = availableMiB();
  const series = { prepareMs: [] as number[], activateMs: [] as number[], prepareLockHoldMs: [] as number[], activateLockHoldMs: [] as number[] };
  const waits = { prepare: [] as number[], activate: [] as number[] };
  const started = Date.now();
  try {
    const before = await timeDaemonReload(master, 5);
    const useraddBefore = await timeUseradd(master, 5, accountIdRange);
    const systemRangeFreeAccountIds = (await ok(host, 'probe', {})).capacity.freeAccountIds;
    const { driver } = observed;
    await driver.ensureNamespace(bindingFor(NAMESPACE, 'scale-0001').namespace);
    await driver.preflight(); // opens the master connection outside the measured calls
    const revisions = [];
    for (let i = 1; i <= agents; i += 1) {
      if (i % 50 === 0) progress(`scale: agent ${i} of ${agents}`);
      const binding = bindingFor(NAMESPACE, `scale-${String(i).padStart(4, '0')}`);
      driver.bindAgent(binding);
      const revision = revisionFor(binding, 1, 0);
      revisions.push(revision);
      series.prepareMs.push((await timed(() => driver.prepareRevision(revision))).ms);
      const prepared = observed.last('prepare-revision', revision.id).timings;
      series.activateMs.push((await timed(() => driver.activateRevision(revision))).ms);
      const activated = observed.last('activate-revision', revision.id).timings;
      series.prepareLockHoldMs.push(prepared?.lockHoldMs ?? Number.NaN);
      waits.prepare.push(prepared?.lockWaitMs ?? Number.NaN);
      series.activateLockHoldMs.push(activated?.lockHoldMs ?? Number.NaN);
      waits.activate.push(activated?.lockWaitMs ?? Number.NaN);
      // Not measured: the oldest running gateway stops, so memory bounds the run, not the Agent count.
      if (i > running) await driver.stopRevision(revisions[i - running - 1]!);
    }
    const wallMs = Date.now() - started;
    const inventoryMs: number[] = [];
    let listed = 0;
    for (let round = 0; round < INVENTORY_ROUNDS; round += 1) {
      const { ms, value } = await timed(() => driver.inventory(NAMESPACE));
      inventoryMs.push(ms);
      listed = value.namespaces.reduce((sum, ns) => sum + ns.agents.length, 0);
    }
    const after = await timeDaemonReload(master, 5);
    const useraddAfter = await timeUseradd(master, 5, accountIdRange);
    return {
      transport: TRANSPORT,
      agents,
      running,
      readyAfterMs: 0,
      prepare: operation(series.prepareMs, series.prepareLockHoldMs, waits.prepare),
      activate: operation(series.activateMs, series.activateLockHoldMs, waits.activate),
      inventory: { agents: listed, ms: summarize(inventoryMs) },
      systemRangeFreeAccountIds,
      series: { ...series, prepareMs: series.prepareMs.map(Math.round), activateMs: series.activateMs.map(Math.round) },
      daemonReloadMs: { before, after },
      useraddMs: { before: useraddBefore, after: useraddAfter },
      hostMemory: { machineAvailableMiBBefore: memoryBefore, machineAvailableMiBAfter: availableMiB() },
      wallMs,
    };
  } finally {
    await observed.close();
    master.stop();
  }
}
