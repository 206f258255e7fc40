// Polls the gateway's loopback /readyz: fast at first so activation adds little to start-up. Every
// step is held to the time left, whatever the gateway sends or how big its unit grows.
import { listenersOn, socketInodesOf, type Listener } from './listeners.js';
import { abortableSleep, type Session } from '../context/session.js';
import type { HostRunner } from '../run/system.js';
import { unitProcesses, unitRun, type UnitRun } from '../systemd/systemd.js';

/** What one GET /readyz found: 200, another status, no answer within the bound, or no connection. */
export type ReadyzAnswer = 'ready' | 'not-ready' | 'no-answer' | 'refused';

/** One GET /readyz: true when the answer's head says 200. */
export async function probeReady(port: number, timeoutMs = 1000): Promise<boolean> {
  return (await readyzAnswer(port, timeoutMs)) === 'ready';
}

/**
 * One GET /readyz, told apart by how it ended. Security: the timer is a total deadline, not an idle
 * timeout that each byte resets (a gateway trickling its head one byte at a time would hold the probe
 * forever), and the body is never read: the response is destroyed once its head is in.
 */
export function readyzAnswer(port: number, timeoutMs = 1000): Promise<ReadyzAnswer> {
  // Loaded by the operations that probe a gateway, not at the helper's start (run/system.ts).
  const { request } = process.getBuiltinModule('node:http');
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', method: 'GET', agent: false, headers: { connection: 'close' } }, (res) => {
      clearTimeout(timer);
      resolve(res.statusCode === 200 ? 'ready' : 'not-ready');
      res.destroy();
      req.destroy();
    });
    const timer = setTimeout(() => {
      resolve('no-answer');
      req.destroy();
    }, timeoutMs);
    req.on('error', () => {
      clearTimeout(timer);
      resolve('refused');
    });
    req.end();
  });
}

/** Every 25 ms for the first 3 s (what most gateways need), then backing off to 250 ms. */
export function pollDelay(elapsedMs: number): number {
  return elapsedMs < 3000 ? FAST_POLL_MS : Math.min(250, Math.round(FAST_POLL_MS * 1.5 ** Math.ceil((elapsedMs - 3000) / 500)));
}

const FAST_POLL_MS = 25;
/** How often systemd is asked about the unit while /readyz does not answer. */
const UNIT_CHECK_MS = 500;
/** What one probe may take at most, and what the listener check may take when its caller gives no bound. */
const PROBE_MS = 1000;
const LISTENER_CHECK_MS = 5000;
/**
 * Automatic restarts, since activation's own restart, after which a gateway that never answered is
 * taken as crash-looping. Fewer are tolerated: the real gateway can exit on its own start-up
 * deadline on a starved host and then come up.
 */
export const RESTARTS_BEFORE_GIVING_UP = 3;

/** What the wait checks besides /readyz: the unit it restarted, whose account and processes must own the port. */
interface GatewayWatch {
  unit: string;
  uid: number;
  /** The operation's runner, for systemctl and ss. */
  runner: HostRunner;
  /**
   * The unit's InvocationID before activation queued its restart ('' for a unit never started). Until
   * a run with another ID has started, whatever answers on the port is the old gateway, still
   * stopping, and the unit's state is the old run's.
   */
  restartedFrom?: string;
}

/** Not ready; `startRefused` when the queued restart ended without starting the unit (the start rate limit). */
export type Readiness = { ready: true } | { ready: false; reason?: string; startRefused?: true };

/**
 * Gives up at the deadline or when the session closes, and early when the unit has failed or keeps
 * restarting, or when whoever answers on the port is not the Agent's account. A probe is one
 * loopback request.
 */
export async function waitReady(port: number, timeoutMs: number, session: Session, watch?: GatewayWatch): Promise<Readiness> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  const left = () => deadline - Date.now();
  let judge: ((run: UnitRun) => string | undefined) | undefined;
  let nextUnitCheck = started + UNIT_CHECK_MS;
  // When the old run answered (still stopping), when probing stopped for systemd to show the new one.
  let earlierSince: number | undefined;
  while (left() > 0 && !session.isClosed) {
    if (earlierSince === undefined && (await probeReady(port, Math.min(PROBE_MS, Math.max(50, left()))))) {
      if (!watch) return { ready: true };
      const owner = await portOwner(port, watch, deadline);
      if (owner === 'ours') return { ready: true };
      if (owner === 'earlier') earlierSince = nextUnitCheck = Date.now();
      else if (owner !== 'none') return { ready: false, reason: owner };
    }
    // The first view of the restarted run is the baseline: no automatic restart can come sooner than RestartSec=2.
    if (watch && Date.now() >= nextUnitCheck && left() > 0) {
      // A query cut at the deadline gives no view; the loop then ends on the deadline itself.
      const run = await unitRun(watch.runner, watch.unit, left()).catch(() => undefined);
      const stage = run && restartStage(run, watch.restartedFrom);
      if (run && stage === 'refused') return { ready: false, startRefused: true, reason: `systemd did not start ${watch.unit} after its restart (${run.result})` };
      if (run && stage === 'running') {
        earlierSince = undefined;
        judge ??= unitJudge(watch.unit, run);
        const reason = judge(run);
        if (reason) return { ready: false, reason };
      }
      // Until the new run shows, as often as /readyz would be probed.
      nextUnitCheck = Date.now() + (earlierSince === undefined ? UNIT_CHECK_MS : pollDelay(Date.now() - earlierSince));
    }
    try {
      await abortableSleep(Math.min(pollDelay(Date.now() - started), Math.max(0, left())), session.signal);
    } catch {
      break;
    }
  }
  return { ready: false };
}

/**
 * Where a view of the unit stands after a queued restart: `pending` while the job runs (the old
 * process stopping), `refused` when it ended without a new run and left the unit failed (the start
 * rate limit), else `running` (a new run, or one a later operation stopped), which is judged.
 */
export function restartStage(run: Pick<UnitRun, 'activeState' | 'invocation' | 'jobPending'>, restartedFrom: string | undefined): 'pending' | 'refused' | 'running' {
  if (restartedFrom === undefined || run.invocation !== restartedFrom) return 'running';
  if (run.jobPending) return 'pending';
  return run.activeState === 'failed' ? 'refused' : 'running';
}

/**
 * Security: Agents share the host's network, so an answer on the port proves nothing by itself. A
 * sibling Agent (or any other account) listening there would be taken for this Agent's gateway and
 * handed its clients and password. Every listener on the port must belong to the Agent's account
 * (the kernel lets a second socket share a port, SO_REUSEPORT, only for the same UID) and, where the
 * unit's control group can be read, be open in one of the unit's own processes.
 */
export function listenerVerdict(listeners: readonly Listener[], port: number, watch: Omit<GatewayWatch, 'runner'>, unitSockets?: ReadonlySet<number>): 'ours' | 'none' | string {
  if (listeners.length === 0) return 'none';
  const foreign = listeners.find((listener) => listener.uid !== watch.uid);
  if (foreign) return `${foreign.address}:${port} is held by UID ${foreign.uid}, not by the Agent's account (UID ${watch.uid}): another process squats the Agent's port`;
  const outside = unitSockets && listeners.find((listener) => !unitSockets.has(listener.inode));
  if (outside) return `${outside.address}:${port} is held by the Agent's account (UID ${watch.uid}) but by no process of ${watch.unit}`;
  return 'ours';
}

/**
 * Reads who holds the port now, by `deadline`: the socket tables, then the unit's processes' open
 * sockets. A check that hits a bound fails closed, saying so; the wait then ends not-ready (retryable).
 */
async function portOwner(port: number, watch: GatewayWatch, deadline: number, processes?: UnitProcesses): Promise<'ours' | 'none' | 'earlier' | string> {
  // The socket tables and the unit's processes are asked for at once: neither answer depends on the
  // other, and an activation waits for both once /readyz has answered. Both are bounded by `deadline`.
  const unitRead = processes ? Promise.resolve(processes) : unitProcesses(watch.runner, watch.unit, Math.max(1, deadline - Date.now())).catch(() => undefined);
  const listeners = await listenersOn(watch.runner, port, deadline);
  if ('exceeded' in listeners) return `could not tell who holds port ${port}: ${listeners.exceeded}`;
  const early = listenerVerdict(listeners, port, watch);
  if (early !== 'ours') return early;
  const unit = await unitRead;
  if (!unit) return `could not tell who holds port ${port}: systemctl did not name the processes of ${watch.unit} within the listener check's bound`;
  // The run before the restart answered, still stopping: the restarted one is not there yet.
  if (watch.restartedFrom !== undefined && unit.invocation === watch.restartedFrom) return 'earlier';
  const sockets = await socketInodesOf({ ...unit, wanted: new Set(listeners.map((listener) => listener.inode)), deadline });
  if (sockets && 'exceeded' in sockets) return `could not tell whether ${watch.unit} holds port ${port}: ${sockets.exceeded}`;
  return listenerVerdict(listeners, port, watch, sockets);
}

/**
 * True when something listens on the port and every listener is the unit's, under the Agent's account,
 * as found within `boundMs`. `processes` is the unit's ControlGroup and MainPID when the caller has
 * already read them (inventory, for every unit at once); otherwise systemd is asked.
 */
export async function ownedListener(port: number, watch: GatewayWatch, boundMs = LISTENER_CHECK_MS, processes?: UnitProcesses): Promise<boolean> {
  return (await portOwner(port, watch, Date.now() + boundMs, processes)) === 'ours';
}

type UnitProcesses = { controlGroup: string; mainPid: number; invocation?: string };

/** Judges each view of the unit against the first one, remembering the last exit seen (no log contents). */
function unitJudge(unit: string, first: UnitRun): (run: UnitRun) => string | undefined {
  let lastExit = first.exit;
  return (run) => {
    lastExit = run.exit ?? lastExit;
    return unitVerdict(unit, run, first.restarts, lastExit);
  };
}

/** Why the unit will not become ready without a new activation, or undefined while it may still. */
export function unitVerdict(unit: string, run: UnitRun, restartsAtStart: number, lastExit: string | undefined): string | undefined {
  const exit = `last exit: ${lastExit ?? 'none recorded'}`;
  if (run.activeState === 'failed') return `${unit} failed (${run.result}; ${exit})`;
  if (run.activeState === 'inactive') return `${unit} stopped while activation waited for it (${exit})`;
  const restarts = run.restarts - restartsAtStart;
  if (restarts >= RESTARTS_BEFORE_GIVING_UP) return `${unit} restarted ${restarts} times without answering /readyz (${exit})`;
  return undefined;
}
