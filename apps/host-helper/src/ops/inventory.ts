// inventory: reads every marker under the root without changing anything; problems are reported, not thrown.
import {
  agentEntries,
  agentLayoutAt,
  namespaceEntries,
  revisionEntries,
  servedMarker,
  workspaceSetupMarker,
  workspaceSetupMarkerPath,
  type AgentLayout,
  type AgentMarker,
  type TreeReader,
} from '@occ-ssh/markers';
import { ComputeError, type InventoryAgent, type OperationResult } from '@occ-ssh/protocol';
import { AUDIT_JOURNAL_MATCHES, recentAuditLines } from '../audit/audit.js';
import type { OpContext } from '../context/context.js';
import { hostTree } from '../fs/marker-io.js';
import { ownedListener, probeReady } from '../gateway/readiness.js';
import { listDir, lstatOrNull, readSymlink } from '../fs/safe-read.js';
import type { HostRunner } from '../run/system.js';
import { isEnabled, unitUsage } from '../systemd/systemd.js';

const RECENT_AUDIT_LINES = 10;
/** Each Agent's live checks end within this; PROBE_CONCURRENCY of them run at once. */
const AGENT_BOUND_MS = 3000;
const PROBE_MS = 500;
const PROBE_CONCURRENCY = 16;

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
  // The markers first, in order (so problems keep their order); then every gateway at once, each bounded.
  const namespaces = [];
  const described: Described[] = [];
  for (const { layout, marker: ns } of namespaceEntries(ctx.runtime.root, reader)) {
    if (!ns) continue;
    const agents: InventoryAgent[] = [];
    for (const entry of agentEntries(ctx.runtime.root, ctx.runtime.systemdUnitDirectory, layout.agents, reader)) {
      if (entry.marker) described.push(describeAgent(agentLayoutAt(entry.dir, ctx.runtime.systemdUnitDirectory, entry.marker.agentId), entry.marker, reader, problems, agents));
    }
    namespaces.push({ namespaceId: ns.namespaceId, namespaceName: ns.namespaceName, agents });
  }
  await eachBounded(described, PROBE_CONCURRENCY, (agent) => liveState(ctx.runner, agent));
  return { namespaces, problems, recentAudit: await recentAudit(ctx.runner, problems) };
}

/** The journal's newest audit lines; a host whose journal cannot be read reports that, not a failure. */
async function recentAudit(runner: HostRunner, problems: Problem[]): Promise<string[]> {
  const lines = await recentAuditLines(runner, RECENT_AUDIT_LINES);
  if (!lines) problems.push({ path: 'journal', message: `the audit lines (journalctl ${AUDIT_JOURNAL_MATCHES.join(' ')}) could not be read` });
  return lines ?? [];
}

/** An Agent as its markers describe it; the live fields (unit state, enabled, ready) are filled in by liveState. */
interface Described {
  agent: InventoryAgent;
  hasUnitFile: boolean;
}

function describeAgent(layout: AgentLayout, agent: AgentMarker, reader: TreeReader, problems: Problem[], into: InventoryAgent[]): Described {
  const revisions = [];
  const byDir = new Map<string, string>();
  for (const { layout: paths, marker } of revisionEntries(layout, reader)) {
    if (!marker) continue;
    byDir.set(paths.currentTarget, marker.revisionId);
    revisions.push({ revisionId: marker.revisionId, number: marker.revisionNumber, auth: marker.auth });
  }
  const current = attempt(problems, layout.current, () => readSymlink(layout.current));
  const served = reader.marker(layout.served, servedMarker);
  const setupPath = workspaceSetupMarkerPath(layout.dir);
  const setup = attempt(problems, setupPath, () => reader.marker(setupPath, workspaceSetupMarker));
  const described: InventoryAgent = {
    agentId: agent.agentId,
    servicePrincipalId: agent.servicePrincipalId,
    account: agent.account,
    uid: agent.uid,
    gid: agent.gid,
    port: agent.port,
    unit: layout.unitName,
    unitState: 'not-found',
    enabled: false,
    currentRevisionId: current ? (byDir.get(current) ?? null) : null,
    servedRevisionId: served?.revisionId ?? null,
    servedAt: served?.servedAt ?? null,
    ready: false,
    memoryBytes: null,
    restarts: null,
    revisions: revisions.sort((a, b) => a.number - b.number),
    ...(setup ? { workspaceSetupId: setup.setupId } : {}),
  };
  into.push(described);
  return { agent: described, hasUnitFile: lstatOrNull(layout.unitFile) !== null };
}

/**
 * systemd's view and a /readyz probe, all within AGENT_BOUND_MS. Security: the gateway decides how it
 * answers (a trickled head, silence, an endless body) and how big its unit is; none of that may hold
 * the host's status past a few seconds, so every step gets the time left and a step cut short reads
 * as not ready (or `unknown` for systemd's state).
 */
async function liveState(runner: HostRunner, { agent, hasUnitFile }: Described): Promise<void> {
  if (!hasUnitFile) return;
  const deadline = Date.now() + AGENT_BOUND_MS;
  const left = () => Math.max(1, deadline - Date.now());
  const usage = await unitUsage(runner, agent.unit, left()).catch(() => ({ activeState: 'unknown', memoryBytes: null, restarts: null }));
  agent.unitState = usage.activeState;
  agent.memoryBytes = usage.memoryBytes;
  agent.restarts = usage.restarts;
  agent.enabled = agent.unitState !== 'not-found' && (await isEnabled(runner, agent.unit, left()).catch(() => false));
  // A port answering is not enough: a squatter may hold it while the gateway is down.
  agent.ready = agent.unitState === 'active' && (await probeReady(agent.port, Math.min(PROBE_MS, left()))) && (await ownedListener(agent.port, { unit: agent.unit, uid: agent.uid, runner }, left()));
}

/** Runs `work` on every item, at most `limit` at a time. */
async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
