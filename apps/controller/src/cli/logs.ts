// occ-ssh logs: one Agent's gateway journal, read by the host helper, printed as the gateway's own
// words: every line is attributed to the Agent and its control characters are shown, not obeyed.
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { MAX_LOG_LINES, type LogEntry } from '@occ-ssh/protocol';
import type { CommandContext } from './commands.js';
import { neutralise, printableJson } from './journal-text.js';
import { DEFAULT_LOG_LINES } from './args.js';
import { bindingFrom, resourcesFrom } from './resources.js';
import { previousInstance, runtimeBinding } from './runtime.js';

/** How often --follow asks for what is new; each ask is one bounded helper call, so nothing runs on between them. */
const FOLLOW_POLL_MS = 1000;

export async function logs({ options, driver, report, print, signal }: CommandContext) {
  const binding = bindingFrom(options);
  const revision = options.revisionId === undefined ? undefined : { id: options.revisionId, number: options.revisionNumber ?? 1 };
  const show = (entries: readonly LogEntry[]) => {
    for (const entry of entries)
      print(
        options.json
          ? `${printableJson(entry)}\n`
          : `${entry.time} ${binding.agent.id}[${entry.pid ?? '-'}]: ${entry.message === null ? '(message over 4096 bytes not shown)' : neutralise(entry.message)}\n`,
      );
  };
  if (options.previous) {
    const { revision: admitted } = resourcesFrom(options);
    const target = runtimeBinding(driver, binding, { id: admitted.id, number: admitted.revision });
    const chunk = await previousInstance(driver, target, options.lines ?? DEFAULT_LOG_LINES, signal ?? new AbortController().signal);
    report.line(`previous gateway process of pod ${chunk.stream.podUid} (${chunk.stream.pod}) of revision ${admitted.id}${chunk.truncated ? '; older lines left out to stay within 256 KiB' : ''}:`);
    if (!options.json) for (const line of chunk.lines) print(`${line.time ?? '-'} ${binding.agent.id}: ${neutralise(line.raw)}\n`);
    return chunk;
  }
  const first = await driver.readLogs(binding, {
    lines: options.lines ?? DEFAULT_LOG_LINES,
    ...(revision ? { revision } : {}),
    ...(options.since === undefined ? {} : { sinceEpochSeconds: options.since }),
  });
  report.line(
    `gateway journal of Agent ${binding.agent.id} (journalctl --namespace=+${GATEWAY_LOG_NAMESPACE} _SYSTEMD_UNIT=${first.unit} _UID=${first.uid})${first.truncated ? `; older entries left out to stay within 256 KiB` : ''}:`,
  );
  if (!options.follow) {
    if (!options.json) show(first.entries);
    return { unit: first.unit, uid: first.uid, entries: first.entries, truncated: first.truncated };
  }
  show(first.entries);
  let cursor = first.cursor;
  // No entry yet to continue after: what is new is what comes from now on.
  const startedAt = Math.floor(Date.now() / 1000);
  // Until the CLI's interrupt: each page starts after the last entry shown.
  while (!signal?.aborted) {
    await pause(FOLLOW_POLL_MS, signal);
    if (signal?.aborted) break;
    const page = await driver.readLogs(binding, { lines: MAX_LOG_LINES, ...(cursor ? { afterCursor: cursor } : { sinceEpochSeconds: startedAt }) });
    show(page.entries);
    cursor = page.cursor;
  }
  return { followed: true };
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
