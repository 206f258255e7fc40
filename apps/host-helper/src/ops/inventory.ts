// inventory: reads every marker under the root without changing anything; problems are reported, not thrown.
import {
  agentEntries,
  agentLayoutAt,
  UNIT_PREFIX,
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
import { loadedStates, unitStatuses, type UnitStatus } from '../systemd/systemd.js';
import { enabledOnDisk } from '../systemd/unit-links.js';

const RECENT_AUDIT_LINES = 10;
/** systemd's view of every unit ends within this; each Agent's readiness checks within AGENT_BOUND_MS, PROBE_CONCURRENCY of them at once. */
const SHOW_BOUND_MS = 10_000;
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
  await liveStates(ctx, described);
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
  layout: AgentLayout;
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
  return { agent: described, layout, hasUnitFile: lstatOrNull(layout.unitFile) !== null };
}

/**
 * Every unit's state at once (`systemctl list-units`), systemd's fuller view (one `systemctl show`
 * per hundred units) of those not simply stopped, whether each is enabled from its links on disk,
 * then a /readyz probe and the listener check of each active unit, PROBE_CONCURRENCY at a time: a
 * few processes per status, plus one `ss` per answering gateway, not four or five per Agent. A
 * stopped unit has no memory or processes, and its restart count is of a run that is over: asking
 * systemd for them cost about 3.5 ms a unit, 3 s for 900 stopped Agents.
 */
async function liveStates(ctx: OpContext, described: readonly Described[]): Promise<void> {
  const deadline = Date.now() + SHOW_BOUND_MS;
  const withUnit = described.filter((entry) => entry.hasUnitFile);
  const states = await loadedStates(ctx.runner, `${UNIT_PREFIX}*`, SHOW_BOUND_MS);
  const state = (unit: string) => (states ? (states.get(unit) ?? 'inactive') : 'unknown');
  const statuses = await unitStatuses(
    ctx.runner,
    withUnit.flatMap(({ agent }) => (state(agent.unit) === 'inactive' ? [] : [agent.unit])),
    Math.max(1, deadline - Date.now()),
  ).catch(() => new Map<string, UnitStatus>());
  for (const { agent, layout } of withUnit) {
    const status = statuses.get(agent.unit);
    agent.unitState = status?.activeState ?? (state(agent.unit) === 'inactive' ? 'inactive' : 'unknown');
    agent.memoryBytes = status?.memoryBytes ?? null;
    agent.restarts = status?.restarts ?? null;
    agent.enabled = enabledOnDisk(agent.unit, layout.unitFile, ctx.runtime.systemdUnitDirectory);
  }
  const active = withUnit.filter(({ agent }) => agent.unitState === 'active');
  await eachBounded(active, PROBE_CONCURRENCY, (entry) => readiness(ctx.runner, entry.agent, statuses.get(entry.agent.unit)!));
}

/**
 * A /readyz probe and the listener check, within AGENT_BOUND_MS. Security: the gateway decides how it
 * answers (a trickled head, silence, an endless body) and how many sockets its unit holds; none of
 * that may hold the host's status past a few seconds, so each step gets the time left and a step cut
 * short reads as not ready.
 */
async function readiness(runner: HostRunner, agent: InventoryAgent, processes: UnitStatus): Promise<void> {
  const deadline = Date.now() + AGENT_BOUND_MS;
  const left = () => Math.max(1, deadline - Date.now());
  // A port answering is not enough: a squatter may hold it while the gateway is down.
  agent.ready = (await probeReady(agent.port, Math.min(PROBE_MS, left()))) && (await ownedListener(agent.port, { unit: agent.unit, uid: agent.uid, runner }, left(), processes));
}

/** Runs `work` on every item, at most `limit` at a time. */
async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
