// describe-runtime: what systemd, the journal and the Agent's own listener say about one revision's
// gateway; reads only, takes no lock, and answers within a few seconds whatever the gateway does.
import * as z from 'zod/mini';
import { revisionTarget } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_ACCOUNT, EXAMPLE_OWNER, EXAMPLE_REVISION } from './examples.js';

/** The most unit events one answer carries (the newest since the revision's activation). */
export const MAX_RUNTIME_EVENTS = 8;

/** What systemd recorded of how a main process ended: the kernel's CLD_* code as systemd names it, and the exit status or signal number. */
const exit = () =>
  z.strictObject({
    code: z.enum(['exited', 'killed', 'dumped']),
    status: z.int().check(z.minimum(0), z.maximum(255)),
    /** ISO 8601 UTC; null when systemd did not say. */
    at: z.nullable(z.string()),
  });

/** One state change systemd itself (PID 1, UID 0) logged about the unit; never a line the gateway wrote. */
const runtimeEvent = () =>
  z.strictObject({
    /** journald's receive time, ISO 8601 UTC with microseconds. */
    time: z.string(),
    kind: z.enum(['started', 'exited', 'failed', 'restart-scheduled', 'stopped', 'oom-killed']),
    /** `exited`: how (exited, killed, dumped); `failed`: systemd's result (exit-code, signal, start-limit-hit, oom-kill, ...). */
    code: z.nullable(z.string()),
    /** `exited`: the exit status or signal number; `restart-scheduled`: the restart counter. */
    status: z.nullable(z.int()),
  });

/** The Agent's gateway unit while it runs the described revision. */
const runningPod = () =>
  z.strictObject({
    /** Stable while systemd restarts the process, new with every activation that restarts the unit: a digest of the revision ID and served.json's time. */
    uid: z.string().check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)),
    /** When the activation that started this pod found it ready (served.json), ISO 8601 UTC; null when no activation did. */
    servedAt: z.nullable(z.string()),
    /** systemd's ActiveState, SubState and Result of the unit. */
    activeState: z.string(),
    subState: z.string(),
    result: z.string(),
    /** systemd's NRestarts: automatic restarts since the activation's own start. */
    restarts: z.int().check(z.minimum(0)),
    /** ExecMainStartTimestamp, ISO 8601 UTC; null before the first start. */
    startedAt: z.nullable(z.string()),
    /** The last main process of this pod that ended: ExecMain* while the unit has not started another, else the newest exit systemd logged in this pod. */
    lastExit: z.nullable(exit()),
    /** The Agent's own listener (its UID, inside the unit's processes) answers /readyz with 200. */
    ready: z.boolean(),
    /** This pod's events (since the start that began it), newest last, at most MAX_RUNTIME_EVENTS. */
    events: z.array(runtimeEvent()),
  });

export const describeRuntimeOperation = lazyOperation(false, () => ({
  args: revisionTarget,
  result: z.strictObject({
    unit: z.string(),
    uid: z.int(),
    /** Null when the unit does not run this revision; `absent` says why. */
    pod: z.nullable(runningPod()),
    absent: z.nullable(z.enum(['not-current', 'no-unit', 'inactive'])),
    /** What the gateways' journal namespace keeps, from its journald configuration file (or journald's defaults). */
    retention: z.strictObject({
      namespace: z.string(),
      /** The [Journal] settings of journald@<namespace>.conf that bound it (Storage, *MaxUse, *KeepFree, MaxRetentionSec, ...); empty for journald's defaults. */
      settings: z.record(z.string(), z.string()),
    }),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const describeRuntimeExample = (): OperationExample<typeof describeRuntimeOperation> => ({
  args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION },
  result: {
    unit: 'openclaw-enterprise-gateway-0123456789ab.service',
    uid: EXAMPLE_ACCOUNT.uid,
    pod: {
      uid: '0d7c52a1-94f3-4b6e-8a07-3c2b1f0e9d84',
      servedAt: '2026-01-01T00:00:00.000Z',
      activeState: 'active',
      subState: 'running',
      result: 'success',
      restarts: 1,
      startedAt: '2026-01-01T00:01:00.000Z',
      lastExit: { code: 'killed', status: 9, at: '2026-01-01T00:00:58.000000Z' },
      ready: true,
      events: [
        { time: '2026-01-01T00:00:01.000000Z', kind: 'started', code: null, status: null },
        { time: '2026-01-01T00:00:58.000000Z', kind: 'exited', code: 'killed', status: 9 },
        { time: '2026-01-01T00:01:00.000000Z', kind: 'restart-scheduled', code: null, status: 1 },
      ],
    },
    absent: null,
    retention: { namespace: 'openclaw-enterprise', settings: { SystemMaxUse: '2G', MaxRetentionSec: '30day' } },
  },
});

export type RuntimeEvent = z.infer<ReturnType<typeof runtimeEvent>>;
