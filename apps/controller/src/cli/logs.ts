// occ-ssh logs: one Agent's gateway journal, read by the host helper, printed as the gateway's own
// words: every line is attributed to the Agent and its control characters are shown, not obeyed.
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { MAX_FOLLOW_SECONDS, type LogEntry } from '@occ-ssh/protocol';
import type { CommandContext } from './commands.js';
import { neutralise, printableJson } from './journal-text.js';
import { DEFAULT_LOG_LINES } from './args.js';
import { bindingFrom, resourcesFrom } from './resources.js';
import { previousInstance, runtimeBinding } from './runtime.js';

/** Why a follow ended, as the closing line says it. */
const FOLLOW_ENDS = {
  time: `its bound of ${MAX_FOLLOW_SECONDS} s was reached; run it again to go on`,
  bytes: 'its bound of 2 MiB of entries was reached; later entries are not shown (run it again with --since)',
  journal: 'journalctl ended on the host',
} as const;

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
    report.note(`previous gateway process of pod ${chunk.stream.podUid} (${chunk.stream.pod}) of revision ${admitted.id}${chunk.truncated ? '; older lines left out to stay within 256 KiB' : ''}:`);
    if (!options.json) for (const line of chunk.lines) print(`${line.time ?? '-'} ${binding.agent.id}: ${neutralise(line.raw)}\n`);
    return chunk;
  }
  const query = {
    lines: options.lines ?? DEFAULT_LOG_LINES,
    ...(revision ? { revision } : {}),
    ...(options.since === undefined ? {} : { sinceEpochSeconds: options.since }),
  };
  const selection = (unit: string, uid: number) => `journalctl --namespace=+${GATEWAY_LOG_NAMESPACE} _SYSTEMD_UNIT=${unit} _UID=${uid}`;
  if (!options.follow) {
    const page = await driver.readLogs(binding, query);
    report.note(`gateway journal of Agent ${binding.agent.id} (${selection(page.unit, page.uid)})${page.truncated ? `; older entries left out to stay within 256 KiB` : ''}:`);
    if (!options.json) show(page.entries);
    return { unit: page.unit, uid: page.uid, entries: page.entries, truncated: page.truncated };
  }
  // One helper run: the page, then one journalctl --follow on the host, bounded and ended with the command.
  report.note(`following the gateway journal of Agent ${binding.agent.id} for at most ${MAX_FOLLOW_SECONDS} s (Ctrl-C ends it):`);
  let entries = 0;
  const onEntries = (page: LogEntry[]) => {
    entries += page.length;
    show(page);
  };
  try {
    const end = await driver.followLogs(binding, query, onEntries, signal ? { signal } : {});
    report.note(`occ-ssh logs: ${entries} entries (${selection(end.unit, end.uid)}); ${FOLLOW_ENDS[end.ended]}`);
    return { followed: true, ended: end.ended, entries, unit: end.unit, uid: end.uid, cursor: end.cursor, truncated: end.truncated };
  } catch (error) {
    // Following until told to stop is its success: the interrupt ends it, and closing the session ends journalctl on the host.
    if (!signal?.aborted) throw error;
    return { followed: true, ended: 'interrupted' as const, entries };
  }
}
