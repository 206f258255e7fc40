// describe-runtime: OCC's runtime view of one revision's gateway. Reads only, takes no lock, and ends
// within DESCRIBE_BOUND_MS whatever the gateway does: each step gets the time left.
import { readFileSync } from 'node:fs';
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { ownedListener, probeReady } from '../gateway/readiness.js';
import { mainExit, podHistory, podOf, systemdTime, unitMessages } from '../runtime/runtime-pod.js';

/** The whole answer's bound; systemd, the journal and the readiness probe share it. */
const DESCRIBE_BOUND_MS = 4000;
/** One /readyz probe: a gateway that holds its listener open without answering costs at most this. */
const PROBE_MS = 500;
/** The journal read's share: what is left of the bound after it still covers the readiness checks. */
const JOURNAL_MS = 1500;

export async function describeRuntime(ctx: OpContext, args: OperationArgs<'describe-runtime'>): Promise<OperationResult<'describe-runtime'>> {
  const deadline = Date.now() + DESCRIBE_BOUND_MS;
  const facts = await podOf(ctx, args.owner, args.revision, deadline);
  const base = { unit: facts.layout.unitName, uid: facts.uid, retention: retention() };
  if (!facts.pod) return { ...base, pod: null, absent: facts.absent };
  const { show, podUid, servedAt } = facts.pod;
  const messages = await unitMessages(ctx, facts.layout.unitName, servedAt, Math.min(deadline, Date.now() + JOURNAL_MS)).catch(() => []);
  const history = podHistory(messages, show('InvocationID'));
  const lastLogged = history.events.findLast((event) => event.kind === 'exited' && event.code !== null && event.status !== null);
  const lastExit = mainExit(show) ?? (lastLogged ? { code: lastLogged.code as 'exited' | 'killed' | 'dumped', status: lastLogged.status!, at: lastLogged.time } : null);
  const left = () => Math.max(1, deadline - Date.now());
  const port = facts.agentPort;
  // Ready means what activation means: /readyz answers 200 and the listener is the Agent's own, inside its unit.
  const ready =
    show('ActiveState') === 'active' &&
    (await probeReady(port, Math.min(PROBE_MS, left()))) &&
    (await ownedListener(port, { unit: facts.layout.unitName, uid: facts.uid, runner: ctx.runner }, left()));
  return {
    ...base,
    pod: {
      uid: podUid,
      servedAt,
      activeState: show('ActiveState'),
      subState: show('SubState'),
      result: show('Result'),
      restarts: Number(show('NRestarts')) || 0,
      startedAt: systemdTime(show('ExecMainStartTimestamp')),
      lastExit: lastExit && ['exited', 'killed', 'dumped'].includes(lastExit.code) ? lastExit : null,
      ready,
      events: history.events,
    },
    absent: null,
  };
}

const RETENTION_KEYS = [
  'Storage',
  'SystemMaxUse',
  'SystemKeepFree',
  'SystemMaxFileSize',
  'SystemMaxFiles',
  'RuntimeMaxUse',
  'RuntimeKeepFree',
  'RuntimeMaxFileSize',
  'RuntimeMaxFiles',
  'MaxRetentionSec',
  'MaxFileSec',
];

/**
 * The [Journal] size and age settings of the gateways' namespace, from the file its journald reads
 * (it reads neither journald.conf nor its drop-ins). Absent or unreadable: journald's defaults.
 */
function retention(): OperationResult<'describe-runtime'>['retention'] {
  let text = '';
  try {
    text = readFileSync(`/etc/systemd/journald@${GATEWAY_LOG_NAMESPACE}.conf`)
      .subarray(0, 64 * 1024)
      .toString('utf8');
  } catch {
    // No file: the namespace keeps journald's defaults.
  }
  const settings: Record<string, string> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (/^\[.*\]$/.test(line)) section = line;
    const match = /^([A-Za-z]+)\s*=\s*([A-Za-z0-9.%]{1,32})$/.exec(line);
    if (section === '[Journal]' && match && RETENTION_KEYS.includes(match[1]!)) settings[match[1]!] = match[2]!;
  }
  return { namespace: GATEWAY_LOG_NAMESPACE, settings };
}
