// inventory: reads every marker under the root without changing anything; problems are reported, not thrown.
import { agentEntries, agentLayoutAt, namespaceEntries, revisionEntries, servedMarker, type AgentLayout, type AgentMarker, type TreeReader } from '@occ-ssh/markers';
import { ComputeError, type InventoryAgent, type OperationResult } from '@occ-ssh/protocol';
import { AUDIT_JOURNAL_MATCHES, recentAuditLines } from '../audit.js';
import type { OpContext } from '../context.js';
import { hostTree } from '../marker-io.js';
import { ownedListener, probeReady } from '../readiness.js';
import { listDir, lstatOrNull, readSymlink } from '../safe-read.js';
import { activeState, isEnabled } from '../systemd.js';

const RECENT_AUDIT_LINES = 10;

type Problem = { path: string; message: string };

function attempt<T>(problems: Problem[], path: string, read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    problems.push({ path, message: error instanceof ComputeError ? error.message : 'could not be read' });
    return null;
  }
}

export async function inventory(ctx: OpContext): Promise<OperationResult<'inventory'>> {
  const problems: Problem[] = [];
  // Each unreadable marker is reported and skipped; the rest of the tree is still listed.
  const reader: TreeReader = { list: listDir, marker: (path, schema) => attempt(problems, path, () => hostTree.marker(path, schema)) };
  const namespaces = [];
  for (const { layout, marker: ns } of namespaceEntries(ctx.runtime.root, reader)) {
    if (!ns) continue;
    const agents: InventoryAgent[] = [];
    for (const entry of agentEntries(ctx.runtime.root, ctx.runtime.systemdUnitDirectory, layout.agents, reader)) {
      if (entry.marker) agents.push(await describeAgent(agentLayoutAt(entry.dir, ctx.runtime.systemdUnitDirectory, entry.marker.agentId), entry.marker, reader, problems));
    }
    namespaces.push({ namespaceId: ns.namespaceId, namespaceName: ns.namespaceName, agents });
  }
  return { namespaces, problems, recentAudit: await recentAudit(problems) };
}

/** The journal's newest audit lines; a host whose journal cannot be read reports that, not a failure. */
async function recentAudit(problems: Problem[]): Promise<string[]> {
  const lines = await recentAuditLines(RECENT_AUDIT_LINES);
  if (!lines) problems.push({ path: 'journal', message: `the audit lines (journalctl ${AUDIT_JOURNAL_MATCHES.join(' ')}) could not be read` });
  return lines ?? [];
}

async function describeAgent(layout: AgentLayout, agent: AgentMarker, reader: TreeReader, problems: Problem[]): Promise<InventoryAgent> {
  const unit = layout.unitName;
  const revisions = [];
  const byDir = new Map<string, string>();
  for (const { layout: paths, marker } of revisionEntries(layout, reader)) {
    if (!marker) continue;
    byDir.set(paths.currentTarget, marker.revisionId);
    revisions.push({ revisionId: marker.revisionId, number: marker.revisionNumber, auth: marker.auth });
  }
  const current = attempt(problems, layout.current, () => readSymlink(layout.current));
  const served = reader.marker(layout.served, servedMarker);
  const unitState = lstatOrNull(layout.unitFile) ? await activeState(unit) : 'not-found';
  return {
    agentId: agent.agentId,
    servicePrincipalId: agent.servicePrincipalId,
    account: agent.account,
    uid: agent.uid,
    gid: agent.gid,
    port: agent.port,
    unit,
    unitState,
    enabled: unitState !== 'not-found' && (await isEnabled(unit)),
    currentRevisionId: current ? (byDir.get(current) ?? null) : null,
    servedRevisionId: served?.revisionId ?? null,
    servedAt: served?.servedAt ?? null,
    // A port answering is not enough: a squatter may hold it while the gateway is down.
    ready: unitState === 'active' && (await probeReady(agent.port, 500)) && (await ownedListener(agent.port, { unit, uid: agent.uid })),
    revisions: revisions.sort((a, b) => a.number - b.number),
  };
}
