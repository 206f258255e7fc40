// Activation overhead. Each sample prepares a new revision (untimed), then times
// activateRevision through the driver and reads the host's own record of the same activation:
// systemd's journal for the unit (stop issued, process started), the fixture gateway's start line
// (fixture-starts.jsonl) and its "ready" line, and served.json's servedAt (the helper saw /readyz
// answer 200). Host and controller share one kernel clock, so the timestamps line up.
import { join } from 'node:path';
import { SystemSshCommandExecutor } from '@occ-ssh/controller/internal';
import { agentLayout, GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { progress, type BenchContext } from '../hosts/context.js';
import { bindingFor, configurationFor, ObservedDriver, revisionFor, RUNTIME_ROOT, TRANSPORTS, UNIT_DIRECTORY, type BenchHost, type Transport } from '../hosts/installation.js';
import { RecordingExecutor } from '../hosts/recording.js';
import { ControlMaster, settingsOf } from '../hosts/ssh.js';
import { median, summarize, type Summary } from '../report/stats.js';

/** One activation on the host's timeline, in ms after the controller called activateRevision. */
interface ActivationSample {
  activationMs: number;
  stopIssuedAt: number | null;
  processStartedAt: number;
  gatewayStartedAt: number;
  gatewayReadyAt: number;
  helperSawReadyAt: number;
  helperTotalMs: number;
  /** The helper's readyMs (restart issued to /readyz 200); only the recorded system-ssh executor returns it. */
  helperReadyMs: number | null;
}

interface ActivationBreakdown {
  /** Controller call to the restart being issued: transport, helper start-up, checks, and the unit write and daemon-reload when its file changed. */
  beforeRestartMs: number;
  /** Of the whole activation, the time outside the helper's own clock: connection, node start-up, helper loading, session teardown. */
  outsideHelperMs: number;
  /** beforeRestartMs minus outsideHelperMs: the helper's own work before the restart (lock, checks, unit write and reload when its file changed). */
  helperBeforeRestartMs: number;
  /** Stopping the old gateway and systemd starting the new process. */
  restartMs: number;
  /** Gateway process start to /readyz ready: the gateway's own start-to-ready. */
  gatewayStartToReadyMs: number;
  /** Of which the gateway's Node start-up (process start to its first line of code). */
  gatewayNodeStartMs: number;
  /** Ready to the helper seeing it: the readiness poll's granularity. */
  pollLagMs: number;
  /** Helper seeing ready to the controller returning: served.json, result line, session teardown. */
  afterReadyMs: number;
}

interface TransportActivation {
  transport: Transport;
  samples: ActivationSample[];
  activationMs: Summary;
  gatewayStartToReadyMs: Summary;
  /** activation minus the gateway's own start-to-ready, per sample. The activation target applies here. */
  overheadMs: Summary;
  /** The same, counting the gateway's own time from the moment the restart was issued (includes stopping the old one). */
  overheadFromRestartMs: Summary;
  /** The same, counting only the time the gateway's code ran (fixture start line to ready, about readyAfterMs). */
  overheadFromGatewayCodeMs: Summary;
  breakdownMedianMs: ActivationBreakdown;
  helperReadyMs: Summary | null;
  /**
   * What no activation over a reused connection can go below: a bare `node -e 0` over the same kind
   * of reused connection (channel and Node's start, timed after each sample), systemd's restart of the
   * unit as this run's journal shows it, and half the readiness poll's 25 ms. The activation target
   * applies to overheadMs against it.
   */
  floorMs: { total: number; bareNodeMs: Summary; restartMs: number; pollMs: number };
}

export interface ActivationResult {
  readyAfterMs: number;
  /** `systemctl daemon-reload` timed on the host on its own: what an activation pays when its unit's file changed (a new revision of the same unit, or a new Agent's unit, pays none). */
  hostDaemonReloadMs: Summary;
  transports: TransportActivation[];
}

interface JournalEntry {
  __REALTIME_TIMESTAMP: string;
  MESSAGE?: string | number[];
}

const NAMESPACE = 'bench';
const SEPARATOR = '@@@bench@@@';

function parseHostRecord(text: string, t0: number) {
  const [journal = '', starts = '', served = ''] = text.split(`${SEPARATOR}\n`);
  const entries = journal
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as JournalEntry)
    .map((entry) => ({ at: Number(entry.__REALTIME_TIMESTAMP) / 1000 - t0, message: typeof entry.MESSAGE === 'string' ? entry.MESSAGE : Buffer.from(entry.MESSAGE ?? []).toString('utf8') }))
    .filter((entry) => entry.at >= 0);
  const stop = entries.find((entry) => entry.message.startsWith('Stopping '));
  const started = entries.find((entry) => entry.message.startsWith('Started '));
  const ready = entries.find((entry) => entry.message === 'fixture gateway ready' && started && entry.at >= started.at);
  if (!started || !ready) throw new Error(`the journal does not show this activation's start and readiness:\n${entries.map((e) => `${e.at.toFixed(1)} ${e.message}`).join('\n')}`);
  const gatewayStartedAt = Date.parse((JSON.parse(starts.trim()) as { startedAt: string }).startedAt) - t0;
  const helperSawReadyAt = Date.parse((JSON.parse(served) as { servedAt: string }).servedAt) - t0;
  return { stopIssuedAt: stop ? stop.at : null, processStartedAt: started.at, gatewayStartedAt, gatewayReadyAt: ready.at, helperSawReadyAt };
}

/** Half the helper's fast readiness poll interval (gateway/readiness.ts, 25 ms): the mean wait for the poll after /readyz turns 200. */
const FLOOR_POLL_MS = 12.5;

/** One transport's samples summed up: activation against the gateway's own start-to-ready, and where the time went. */
function transportActivation(transport: TransportActivation['transport'], samples: ActivationSample[], bareNodeMs: number[]): TransportActivation {
  const of = (pick: (s: ActivationSample) => number) => samples.map(pick);
  const own = (s: ActivationSample) => s.gatewayReadyAt - s.processStartedAt;
  const restartAt = (s: ActivationSample) => s.stopIssuedAt ?? s.processStartedAt;
  const ready = samples.map((s) => s.helperReadyMs).filter((v): v is number => v !== null);
  const m = (pick: (s: ActivationSample) => number) => Math.round(median(of(pick)) * 10) / 10;
  return {
    transport,
    samples,
    activationMs: summarize(of((s) => s.activationMs)),
    gatewayStartToReadyMs: summarize(of(own)),
    overheadMs: summarize(of((s) => s.activationMs - own(s))),
    overheadFromRestartMs: summarize(of((s) => s.activationMs - (s.gatewayReadyAt - restartAt(s)))),
    overheadFromGatewayCodeMs: summarize(of((s) => s.activationMs - (s.gatewayReadyAt - s.gatewayStartedAt))),
    breakdownMedianMs: {
      beforeRestartMs: m(restartAt),
      outsideHelperMs: m((s) => s.activationMs - s.helperTotalMs),
      helperBeforeRestartMs: m((s) => restartAt(s) - (s.activationMs - s.helperTotalMs)),
      restartMs: m((s) => s.processStartedAt - restartAt(s)),
      gatewayStartToReadyMs: m(own),
      gatewayNodeStartMs: m((s) => s.gatewayStartedAt - s.processStartedAt),
      pollLagMs: m((s) => s.helperSawReadyAt - s.gatewayReadyAt),
      afterReadyMs: m((s) => s.activationMs - s.helperSawReadyAt),
    },
    helperReadyMs: ready.length ? summarize(ready) : null,
    floorMs: (() => {
      const restartMs = m((s) => s.processStartedAt - restartAt(s));
      const bare = summarize(bareNodeMs);
      return { total: Math.round((bare.median + restartMs + FLOOR_POLL_MS) * 10) / 10, bareNodeMs: bare, restartMs, pollMs: FLOOR_POLL_MS };
    })(),
  };
}

export async function measureActivation(ctx: BenchContext, host: BenchHost): Promise<ActivationResult> {
  const hosts = { [NAMESPACE]: host };
  const binding = bindingFor(NAMESPACE, 'activation');
  const layout = agentLayout(RUNTIME_ROOT, UNIT_DIRECTORY, binding.namespace.id, binding.agent.id);
  const readCommand = (sinceSeconds: number) =>
    [
      `journalctl --namespace=+${GATEWAY_LOG_NAMESPACE} -u ${layout.unitName} -o json --no-pager --since @${sinceSeconds}`,
      `echo ${SEPARATOR}`,
      `tail -n 1 ${layout.state}/fixture-starts.jsonl`,
      `echo ${SEPARATOR}`,
      `cat ${layout.served}`,
    ].join('; ');
  const master = await ControlMaster.start(host, join(ctx.scratch, 'activation-master'));
  let number = 0;
  const results: TransportActivation[] = [];
  try {
    for (const transport of TRANSPORTS) {
      progress(`activation: ${transport}, ${ctx.plan.activationSamples} samples`);
      const recorder = transport === 'system-ssh' ? new RecordingExecutor(new SystemSshCommandExecutor(settingsOf(host))) : undefined;
      const observed = new ObservedDriver(configurationFor(hosts, { transport }), recorder ? { executor: recorder } : {});
      const samples: ActivationSample[] = [];
      const bareNodeMs: number[] = [];
      try {
        const { driver } = observed;
        await driver.ensureNamespace(binding.namespace);
        driver.bindAgent(binding);
        for (let i = -1; i < ctx.plan.activationSamples; i += 1) {
          number += 1;
          const revision = revisionFor(binding, number, ctx.plan.readyAfterMs);
          await driver.prepareRevision(revision);
          const t0 = Date.now();
          await driver.activateRevision(revision);
          const activationMs = Date.now() - t0;
          if (i < 0) continue; // warm-up: the first activation of a driver opens its connection
          const event = observed.last('activate-revision', revision.id);
          let record: ReturnType<typeof parseHostRecord> | undefined;
          for (let attempt = 0; !record; attempt += 1) {
            try {
              record = parseHostRecord(await master.sh(readCommand(Math.floor(t0 / 1000) - 1)), t0);
            } catch (error) {
              if (attempt >= 5) throw error;
              await new Promise((resolve) => setTimeout(resolve, 200));
            }
          }
          const bare = performance.now();
          await master.sh(`${host.nodePath} -e 0`);
          bareNodeMs.push(performance.now() - bare);
          const readyMs = recorder?.lastLine('activate-revision');
          samples.push({
            activationMs,
            ...record,
            helperTotalMs: event.timings?.totalMs ?? Number.NaN,
            helperReadyMs: readyMs?.ok ? ((readyMs.result as { readyMs?: number }).readyMs ?? null) : null,
          });
        }
      } finally {
        await observed.close();
      }
      results.push(transportActivation(transport, samples, bareNodeMs));
    }
    const script = 'for i in 1 2 3 4 5; do s=$(date +%s%N); systemctl daemon-reload; e=$(date +%s%N); echo $(( (e - s) / 1000 )); done';
    const reload = (await master.sh(script))
      .trim()
      .split('\n')
      .map((us) => Number(us) / 1000);
    return { readyAfterMs: ctx.plan.readyAfterMs, hostDaemonReloadMs: summarize(reload), transports: results };
  } finally {
    master.stop();
  }
}
