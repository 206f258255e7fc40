// diagnose-deployment: one revision's deployment, checked without the host lock and without changing
// anything. It reads what the changing operations verify but reports instead of refusing; a check
// whose premise failed (the Agent's identity, its account) is left `unknown`, never guessed. Only
// fixed names and codes leave the host: no path, file content, command output or log text.
import { accountMarker, accountMarkerPath, accountName, namespaceMarker, renderUnit, UnitRenderError, type AgentLayout, type AgentMarker, type RevisionMarker } from '@occ-ssh/markers';
import { DRIVER_ID, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { lookup, type Account } from '../accounts/accounts.js';
import { NEW_AGENT_MIN_FREE_BYTES, NEW_AGENT_MIN_FREE_INODES, rootFree } from '../gateway/capacity.js';
import { systemctlArgv } from '../run/commands.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context/context.js';
import { DeploymentChecks, failed, passed, readQuietly, undecided } from '../runtime/deployment-checks.js';
import { listenersOn, socketInodesOf } from '../gateway/listeners.js';
import { readMarker } from '../fs/marker-io.js';
import { agentOwnerFields, readAgent, readCurrent, readRevision, readServed, verifySnapshot, verifyUnitFile } from '../fs/ownership.js';
import { listenerVerdict, readyzAnswer } from '../gateway/readiness.js';
import { lstatOrNull } from '../fs/safe-read.js';
import { isEnabled } from '../systemd/systemd.js';

type Args = OperationArgs<'diagnose-deployment'>;

/**
 * Security: the gateway decides how it answers (silence, a stopped process, a huge unit); each live
 * step has its own short bound and all of them share BOUND_MS, so the answer comes in a few seconds.
 */
const BOUND_MS = 4000;
const SYSTEMCTL_MS = 1000;
const LISTENER_MS = 1500;
const PROBE_MS = 1000;

export async function diagnoseDeployment(ctx: OpContext, args: Args): Promise<OperationResult<'diagnose-deployment'>> {
  const checks = new DeploymentChecks();
  const deadline = Date.now() + BOUND_MS;
  const within = (ms: number) => Math.max(1, Math.min(ms, deadline - Date.now()));
  const { owner, revision } = args;
  diskHeadroom(ctx, checks);

  const ns = readQuietly(() => readMarker(namespacePaths(ctx, owner.namespace.id).marker, namespaceMarker));
  const nsOk = typeof ns === 'object' && sameOwner(ns.value, { driver: DRIVER_ID, namespaceId: owner.namespace.id, namespaceName: owner.namespace.name });
  checks.set('namespace marker', nsOk ? passed() : failed(ns === 'missing' ? 'NAMESPACE_MARKER_MISSING' : 'NAMESPACE_MARKER_MISMATCH'));
  if (!nsOk) return checks.result();
  const layout = agentPaths(ctx, owner);
  const found = readQuietly(() => readAgent(layout, owner));
  checks.set('agent marker', typeof found === 'object' ? passed() : failed(found === 'missing' ? 'AGENT_MARKER_MISSING' : 'AGENT_MARKER_MISMATCH'));
  if (typeof found !== 'object') return checks.result();
  const agent = found.value;

  const account = await accountChecks(ctx, args, agent, checks);
  const marker = snapshotChecks(layout, args, agent, checks);
  const unitOk = unitFileCheck(ctx, layout, args, agent, marker, checks);
  const current = readQuietly(() => readCurrent(layout));
  const target = revisionPaths(layout, revision).currentTarget;
  checks.set(
    'revision current',
    typeof current !== 'object' ? failed(current === 'missing' ? 'CURRENT_MISSING' : 'CURRENT_INVALID') : current.value === target ? passed() : failed('CURRENT_OTHER_REVISION'),
  );
  const served = readQuietly(() => readServed(layout, owner));
  checks.set(
    'revision served',
    typeof served !== 'object' ? failed(served === 'missing' ? 'SERVED_MISSING' : 'SERVED_INVALID') : served.value.revisionId === revision.id ? passed() : failed('SERVED_OTHER_REVISION'),
  );
  envFileChecks(layout, checks);
  // systemd is asked about the unit only when the name is ours: a foreign unit's state says nothing of the Agent.
  if (!unitOk) return checks.result();

  const unit = await unitState(ctx, layout.unitName, within(SYSTEMCTL_MS));
  if (unit) {
    checks.set('unit loaded', unit.LoadState !== 'loaded' ? failed('UNIT_NOT_LOADED') : unit.NeedDaemonReload === 'no' ? passed() : failed('UNIT_RELOAD_PENDING'));
    checks.set('unit active', activeOutcome(unit.ActiveState ?? '', unit.SubState ?? ''));
  } else {
    checks.set('unit loaded', undecided('SYSTEMD_NO_ANSWER'));
    checks.set('unit active', undecided('SYSTEMD_NO_ANSWER'));
  }
  const enabled = await isEnabled(ctx.runner, layout.unitName, within(SYSTEMCTL_MS)).catch(() => undefined);
  checks.set('unit enabled', enabled === undefined ? undecided('SYSTEMD_NO_ANSWER') : enabled ? passed() : failed('UNIT_DISABLED'));
  if (!account || !unit) return checks.result();

  const listener = await listenerCheck(ctx, agent.port, layout.unitName, account, unit, Date.now() + within(LISTENER_MS));
  checks.set('listener owner', listener);
  // An answer from a listener that is not the Agent's own says nothing of the Agent's gateway.
  if (listener.state === 'succeeded' || listener.code === 'LISTENER_MISSING') {
    const answer = await readyzAnswer(agent.port, within(PROBE_MS));
    checks.set('gateway ready', { ready: passed(), 'not-ready': failed('GATEWAY_NOT_READY'), 'no-answer': failed('GATEWAY_NO_ANSWER'), refused: failed('GATEWAY_NOT_LISTENING') }[answer]);
  }
  return checks.result();
}

/** expectOwner's rule, as a finding instead of a refusal. */
function sameOwner(marker: Record<string, unknown>, want: Record<string, unknown>): boolean {
  return Object.entries(want).every(([key, value]) => marker[key] === value);
}

/** The live user and group, and their IDs against the account marker and the Agent marker; the verified account, or null. */
async function accountChecks(ctx: OpContext, { owner }: Args, agent: AgentMarker, checks: DeploymentChecks): Promise<Account | null> {
  const name = accountName(ctx.runtime.user, owner.namespace.id, owner.agent.id);
  const live = await Promise.all([lookup(ctx.runner, 'passwd', name), lookup(ctx.runner, 'group', name)]).catch(() => undefined);
  const exists = live !== undefined && live[0] !== null && live[1] !== null;
  checks.set('account exists', live === undefined ? undecided('ACCOUNT_LOOKUP_FAILED') : exists ? passed() : failed('ACCOUNT_MISSING'));
  const path = accountMarkerPath(ctx.runtime.root, name);
  const marker = readQuietly(() => readMarker(path, accountMarker));
  if (typeof marker !== 'object' || marker.value.state !== 'active') {
    checks.set('account marker', failed(marker === 'invalid' ? 'ACCOUNT_MARKER_INVALID' : 'ACCOUNT_MARKER_MISSING'));
    return null;
  }
  const recorded = marker.value;
  if (!sameOwner(recorded, { ...agentOwnerFields(owner), account: name })) {
    checks.set('account marker', failed('ACCOUNT_MARKER_MISMATCH'));
    return null;
  }
  if (!exists) {
    checks.set('account marker', undecided());
    return null;
  }
  const [user, group] = live;
  // Security: a reused UID/GID is never taken for the Agent's; the listener check trusts only these.
  const same = user!.id === recorded.uid && group!.id === recorded.gid && user!.primaryGid === recorded.gid && agent.uid === recorded.uid && agent.gid === recorded.gid;
  checks.set('account marker', same ? passed() : failed('ACCOUNT_ID_MISMATCH'));
  return same ? { name, uid: agent.uid, gid: agent.gid } : null;
}

/** This revision's marker, and its openclaw.json against the hash recorded at preparation; the marker when it verified. */
function snapshotChecks(layout: AgentLayout, { owner, revision }: Args, agent: AgentMarker, checks: DeploymentChecks): RevisionMarker | null {
  const paths = revisionPaths(layout, revision);
  const marker = readQuietly(() => readRevision(paths, owner, revision));
  checks.set('snapshot marker', typeof marker === 'object' ? passed() : failed(marker === 'missing' ? 'SNAPSHOT_MISSING' : 'SNAPSHOT_MARKER_MISMATCH'));
  if (typeof marker !== 'object') return null;
  const intact = readQuietly(() => verifySnapshot(paths, marker.value, agent.gid));
  checks.set('snapshot hash', typeof intact === 'object' ? passed() : failed('SNAPSHOT_TAMPERED'));
  return marker.value;
}

/**
 * The unit file against what this helper renders now. One that differs (an earlier release's, or
 * edited) fails with UNIT_REWRITE_PENDING: the next activation of the Agent rewrites it. True when
 * the file is ours to ask systemd about (it may still be missing or differ).
 */
function unitFileCheck(ctx: OpContext, layout: AgentLayout, { owner }: Args, agent: AgentMarker, marker: RevisionMarker | null, checks: DeploymentChecks): boolean {
  const text = readQuietly(() => verifyUnitFile(layout, owner));
  if (text === 'invalid') return (checks.set('unit file', failed('UNIT_FILE_FOREIGN')), false);
  if (text === 'missing') return (checks.set('unit file', failed('UNIT_FILE_MISSING')), true);
  // The password line depends on the revision's auth mode: without its marker the expected text is not known.
  if (!marker) return (checks.set('unit file', undecided()), true);
  const { root, nodePath, openclawPath, gatewayLimits: limits } = ctx.runtime;
  const account = accountName(ctx.runtime.user, owner.namespace.id, owner.agent.id);
  try {
    const expected = renderUnit({
      namespaceId: owner.namespace.id,
      agentId: owner.agent.id,
      account,
      nodePath,
      openclawPath,
      port: agent.port,
      root,
      layout,
      managedPassword: marker.auth !== 'trusted-proxy',
      limits,
    });
    checks.set('unit file', text.value === expected ? passed() : failed('UNIT_REWRITE_PENDING'));
  } catch (error) {
    if (!(error instanceof UnitRenderError)) throw error;
    checks.set('unit file', failed('UNIT_RENDER_REFUSED'));
  }
  return true;
}

const UNIT_PROPERTIES = ['LoadState', 'ActiveState', 'SubState', 'NeedDaemonReload', 'ControlGroup', 'MainPID'] as const;
type UnitState = Partial<Record<(typeof UNIT_PROPERTIES)[number], string>>;

/** One `systemctl show` of the unit within its bound; undefined when systemd did not answer. */
async function unitState(ctx: OpContext, unit: string, timeoutMs: number): Promise<UnitState | undefined> {
  const result = await ctx.runner.run(systemctlArgv({ verb: 'show', unit, properties: UNIT_PROPERTIES }), { timeoutMs }).catch(() => undefined);
  if (!result || result.code !== 0) return undefined;
  return Object.fromEntries(UNIT_PROPERTIES.map((name) => [name, new RegExp(`^${name}=(.*)$`, 'm').exec(result.stdout)?.[1]?.trim() ?? '']));
}

function activeOutcome(active: string, sub: string) {
  if (active === 'active') return passed();
  if (active === 'activating') return failed(sub === 'auto-restart' ? 'UNIT_RESTARTING' : 'UNIT_STARTING');
  const code = ({ failed: 'UNIT_FAILED', inactive: 'UNIT_INACTIVE', deactivating: 'UNIT_STOPPING' } as Record<string, string>)[active];
  return failed(code ?? 'UNIT_STATE_UNEXPECTED');
}

/** Whether every listener on the Agent's port is the Agent's account's and open in its unit's processes (as activation requires). */
async function listenerCheck(ctx: OpContext, port: number, unit: string, account: Account, state: UnitState, deadline: number) {
  const listeners = await listenersOn(ctx.runner, port, deadline);
  if ('exceeded' in listeners) return undecided('LISTENER_CHECK_BOUNDED');
  if (listeners.length === 0) return failed('LISTENER_MISSING');
  if (listeners.some((listener) => listener.uid !== account.uid)) return failed('LISTENER_FOREIGN');
  const wanted = new Set(listeners.map((listener) => listener.inode));
  const sockets = await socketInodesOf({ controlGroup: state.ControlGroup ?? '', mainPid: Number(state.MainPID) || 0, wanted, deadline });
  if (sockets && 'exceeded' in sockets) return undecided('LISTENER_CHECK_BOUNDED');
  return listenerVerdict(listeners, port, { unit, uid: account.uid }, sockets) === 'ours' ? passed() : failed('LISTENER_OUTSIDE_UNIT');
}

/**
 * The operator's env file, by lstat only (its contents are never read): root:root 0600 as
 * docs/operations.md asks. Absent is fine (the unit loads it optionally): both checks pass with ENV_FILE_ABSENT.
 */
function envFileChecks(layout: AgentLayout, checks: DeploymentChecks): void {
  const stat = lstatOrNull(layout.operatorEnvFile);
  if (stat === null) {
    checks.set('env-file owner', passed('ENV_FILE_ABSENT'));
    checks.set('env-file mode', passed('ENV_FILE_ABSENT'));
    return;
  }
  if (!stat.isFile()) {
    checks.set('env-file owner', failed('ENV_FILE_NOT_REGULAR'));
    checks.set('env-file mode', failed('ENV_FILE_NOT_REGULAR'));
    return;
  }
  checks.set('env-file owner', stat.uid === 0 && stat.gid === 0 ? passed() : failed('ENV_FILE_OWNER'));
  checks.set('env-file mode', (stat.mode & 0o7777) === 0o600 ? passed() : failed('ENV_FILE_MODE'));
}

/** Free space and inodes under the root: failed below what preparing a new Agent needs (gateway/capacity.ts). */
function diskHeadroom(ctx: OpContext, checks: DeploymentChecks): void {
  const { bytes, inodes } = rootFree(ctx.runtime.root);
  checks.set('disk space', bytes === null ? undecided() : bytes >= NEW_AGENT_MIN_FREE_BYTES ? passed() : failed('DISK_SPACE_LOW'));
  checks.set('disk inodes', inodes === null ? undecided() : inodes >= NEW_AGENT_MIN_FREE_INODES ? passed() : failed('DISK_INODES_LOW'));
}
