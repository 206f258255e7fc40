// Pure renderer of the per-Agent systemd gateway unit, and the check of its ownership header.
import { GATEWAY_LIMIT_BOUNDS, LAUNCH_ENV_NAME_PATTERN, launchEnvironmentProblems, safePathProblem, sandboxHiddenProblem, type GatewayLimits } from '@occ-ssh/protocol';
import type { AgentLayout } from './layout.js';
import { SYSTEMD_CONFIG_DIR } from './load-path.js';

export interface UnitInput {
  namespaceId: string;
  agentId: string;
  account: string;
  nodePath: string;
  openclawPath: string;
  port: number;
  /** The driver's root: the sandbox hides it whole, binding back only this Agent's home/, state/ and snapshot. */
  root: string;
  layout: AgentLayout;
  /** Load the per-Agent gateway-password.env (password auth, or trusted proxy opting into it). */
  managedPassword: boolean;
  /** The Installation's per-gateway limits; absent or empty renders no limit line. */
  limits?: GatewayLimits | undefined;
  /** The Installation's `network.allowLinkLocal`. */
  allowLinkLocal?: boolean | undefined;
}

export class UnitRenderError extends Error {
  override name = 'UnitRenderError';
}

const HEADER_FIRST = '# Managed by the OpenClaw Enterprise SSH Compute Driver (compute-ssh); edits are refused, not adopted.';

/** The exact lines that prove a unit file belongs to this Namespace and Agent. */
export function unitOwnershipHeader(namespaceId: string, agentId: string): string {
  return [HEADER_FIRST, `# X-OCC-Namespace-Id=${commentValue(namespaceId)}`, `# X-OCC-Agent-Id=${commentValue(agentId)}`].join('\n');
}

/** True only when the file starts with exactly the header of this Namespace and Agent. */
export function hasOwnershipHeader(unitText: string, namespaceId: string, agentId: string): boolean {
  return unitText.startsWith(`${unitOwnershipHeader(namespaceId, agentId)}\n`);
}

/** What the sandbox and limit properties of an Agent's units are rendered from. */
export interface SandboxInput {
  nodePath: string;
  openclawPath: string;
  port: number;
  root: string;
  layout: AgentLayout;
  limits?: GatewayLimits | undefined;
  /** The Installation's `network.allowLinkLocal`: true drops the link-local IPAddressDeny= line. */
  allowLinkLocal?: boolean | undefined;
  /** Bind the `current` snapshot back read-only: the gateway reads its configuration there; native setup gets a scratch copy in state/. */
  current: boolean;
}

/**
 * The sandbox and limit properties every process of an Agent runs under (its gateway unit, and the
 * transient unit of native setup, which runs Agent-writable code too), one `Name=value` each.
 */
export function renderSandbox(input: SandboxInput): string[] {
  const { layout, root } = input;
  const unitDirectory = layout.unitFile.slice(0, layout.unitFile.lastIndexOf('/'));
  for (const [what, value] of Object.entries({ root, 'unit directory': unitDirectory })) {
    const problem = safePathProblem(value);
    if (problem) throw new UnitRenderError(`${what} cannot be rendered into a unit: ${problem}`);
  }
  const hidden = hiddenUnitDirs(unitDirectory);
  const rootProblem = driverDirProblem(root, hidden.slice(1));
  if (rootProblem) throw new UnitRenderError(`root cannot be rendered into a unit: ${rootProblem}`);
  const dirProblem = safePathProblem(layout.dir) ?? sandboxHiddenProblem(layout.dir) ?? (layout.dir.startsWith(`${root}/`) ? undefined : 'is not inside the root');
  if (dirProblem) throw new UnitRenderError(`Agent directory cannot be rendered into a unit: ${dirProblem}`);
  for (const [what, value] of Object.entries({ nodePath: input.nodePath, openclawPath: input.openclawPath })) {
    const problem = safePathProblem(value) ?? sandboxHiddenProblem(value) ?? driverDirProblem(value, [root, ...hidden]);
    if (problem) throw new UnitRenderError(`${what} cannot be rendered into a unit: ${problem}`);
  }
  if (!Number.isInteger(input.port) || input.port < 1024 || input.port > 65535) {
    throw new UnitRenderError('port cannot be rendered into a unit');
  }
  return [
    'NoNewPrivileges=true',
    'PrivateTmp=true',
    // Security: a hard limit of 0 that no process of the unit can raise: no core file of a gateway's memory, wherever the kernel's core_pattern points.
    'LimitCORE=0',
    ...sandboxLines(layout, root, hidden, input.current),
    ...journalLines(),
    ...socketBindLines(input.port),
    ...linkLocalLines(input.allowLinkLocal === true),
    ...limitLines(input.limits ?? {}),
  ];
}

/** The journal namespace every gateway and native setup of the host logs into, apart from the system journal. */
export const GATEWAY_LOG_NAMESPACE = 'openclaw-enterprise';

/**
 * Security: what an Agent's processes can write to the journal. With LogNamespace= systemd mounts the
 * namespace's sockets over /run/systemd/journal/ and /dev/log inside the unit and connects its output
 * to them, so the unit has no path to the system journal: a flood rotates only the namespace's own
 * files (sized by /etc/systemd/journald@openclaw-enterprise.conf), never the helper's audit lines or
 * another service's logs. journald (not systemd) keeps the counts, per unit and for each of its five
 * priority groups, scaling the burst by free journal space (x1 to x6): 1,000 per 30 s is a tenth of
 * journald's default and still over 30 lines a second in each group, so a working gateway's bursts
 * (start-up, errors) stay whole while a flood is cut to a tenth of what journald alone would keep.
 */
function journalLines(): string[] {
  return [`LogNamespace=${GATEWAY_LOG_NAMESPACE}`, 'LogRateLimitIntervalSec=30s', 'LogRateLimitBurst=1000', `InaccessiblePaths=${JOURNAL_SOCKETS.map((path) => `-${path}`).join(' ')}`];
}

/**
 * Security: the journal's native and syslog sockets, under the path LogNamespace= mounts the
 * namespace's over and under the namespace's own (/dev/log links to dev-log). A native entry can
 * carry a sealed memfd of hundreds of MiB, which the namespace's one journald reads, compresses and
 * writes before any count applies, while every sibling's stdout waits. The unit keeps its stdout
 * stream, which systemd connects before the sandbox is set up: journald cuts it into lines of at most
 * LineMax= bytes and counts them against the burst above.
 */
const JOURNAL_SOCKETS = ['/run/systemd/journal', `/run/systemd/journal.${GATEWAY_LOG_NAMESPACE}`].flatMap((dir) => [`${dir}/socket`, `${dir}/dev-log`]);

export function renderUnit(input: UnitInput): string {
  const { layout } = input;
  const sandbox = renderSandbox({ ...input, current: true });
  // Security: only a per-Agent account name (prefix, hyphen, 12 hex) may run a gateway; never root.
  if (!/^[a-z_][a-z0-9_-]{0,18}-[0-9a-f]{12}$/.test(input.account)) throw new UnitRenderError('account name cannot be rendered into a unit');
  return [
    // No revision and no placeholder value in the unit: the same Agent's unit stays byte-identical
    // across revisions and launch environments, so an activation rewrites it and runs daemon-reload
    // (which grows with the host's unit count) only when the port, paths or password mode change.
    // `current` selects the revision, launch.env carries the placeholders.
    unitOwnershipHeader(input.namespaceId, input.agentId),
    '',
    '[Unit]',
    `Description=OpenClaw Enterprise gateway ${layout.unitName.slice(0, -'.service'.length)}`,
    'After=network.target',
    '',
    '[Service]',
    'Type=simple',
    `User=${input.account}`,
    `Group=${input.account}`,
    `WorkingDirectory=${layout.home}`,
    environmentLine('HOME', layout.home),
    environmentLine('OPENCLAW_STATE_DIR', layout.state),
    environmentLine('OPENCLAW_CONFIG_PATH', `${layout.current}/openclaw.json`),
    environmentLine('OPENCLAW_GATEWAY_PORT', String(input.port)),
    ...Object.entries(compileCacheEnvironment(layout)).map(([name, value]) => environmentLine(name, value)),
    ...(input.managedPassword ? [`EnvironmentFile=${layout.passwordFile}`] : []),
    // Always present, possibly empty: a missing file fails the start rather than run without them.
    // The operator's file comes last, so its values win, as they did over Environment= lines.
    `EnvironmentFile=${layout.launchEnvFile}`,
    `EnvironmentFile=-${layout.operatorEnvFile}`,
    `ExecStart=${input.nodePath} ${input.openclawPath} gateway --port ${input.port}`,
    'Restart=always',
    'RestartSec=2',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=30',
    ...sandbox,
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/**
 * Security: systemd sandboxing of the gateway (see docs/hardening.md for the measured exposure of each
 * group). Only the Agent's own home/, state/ and current snapshot stay visible under the root, and only
 * home/ and state/ stay writable (plus the unit's private /tmp and
 * /var/tmp from PrivateTmp=true); no capabilities, no new namespaces, a system-service syscall filter.
 * Left out on purpose, each proven against the real OpenClaw gateway:
 * - MemoryDenyWriteExecute=: V8's JIT needs writable and executable memory.
 * - RestrictSUIDSGID=: systemd enforces it by failing every openat2() with ENOSYS, and the gateway
 *   takes its state lock with openat2(RESOLVE_BENEATH) and exits without a fallback.
 * - PrivateNetwork=, IPAddressDeny= beyond link-local: the gateway must reach its model providers.
 * AF_NETLINK stays allowed: without it Node's os.networkInterfaces() throws, which OpenClaw calls
 * unguarded (device pairing, port inspection) and needs for mDNS.
 * ReadOnlyPaths=/run: under systemd 252, ProtectSystem=strict together with ProtectKernelTunables=,
 * ProtectControlGroups=, ProtectProc= or ProcSubset= was observed to leave /run and the world-writable
 * /run/lock writable; this keeps them read-only whatever the systemd build does.
 */
function sandboxLines(layout: AgentLayout, root: string, hiddenUnits: readonly string[], current: boolean): string[] {
  return [
    // Filesystem: everything read-only except the Agent's own home/ and state/.
    'ProtectSystem=strict',
    // Security: the shared root (accounts, the lock, other Namespaces and Agents) becomes an empty
    // read-only tmpfs with only this Agent's own paths bound back. systemd resolves `current` when
    // the unit starts, so each restart binds the snapshot it then points at.
    `TemporaryFileSystem=${root}:ro`,
    `BindPaths=${layout.home} ${layout.state}`,
    ...(current ? [`BindReadOnlyPaths=${layout.current}`] : []),
    // Security: every sibling's unit file and link, and the system bus, through which any account can
    // list every unit and read its properties. The gateway needs none of them.
    `InaccessiblePaths=${hiddenUnits.join(' ')} -/run/dbus/system_bus_socket`,
    'ReadOnlyPaths=/run',
    'ProtectHome=yes',
    'TemporaryFileSystem=/dev/shm:ro',
    'UMask=0077',
    // Kernel, devices, /proc.
    'PrivateDevices=yes',
    'DevicePolicy=closed',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'ProtectProc=invisible',
    'ProcSubset=pid',
    // Users, IPC, namespaces, personality.
    'PrivateUsers=yes',
    'PrivateIPC=yes',
    'RestrictNamespaces=yes',
    'RestrictRealtime=yes',
    'LockPersonality=yes',
    'RemoveIPC=yes',
    'KeyringMode=private',
    // Capabilities and socket families.
    'CapabilityBoundingSet=',
    'AmbientCapabilities=',
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK',
    // System calls: a blocked call fails with EPERM instead of killing the gateway.
    'SystemCallArchitectures=native',
    'SystemCallFilter=@system-service',
    'SystemCallFilter=~@privileged @resources',
    'SystemCallErrorNumber=EPERM',
  ];
}

/**
 * Security: Agents share the host's network, so the gateway may bind its own port and no other: a
 * compromised or misconfigured gateway cannot squat a sibling Agent's port and be taken for its
 * gateway. Allow takes precedence over deny. The real OpenClaw gateway was measured to bind only
 * 127.0.0.1:<port> and [::1]:<port>. systemd enforces this with a cgroup BPF program; a systemd
 * built without its BPF framework accepts the lines but does not enforce them (docs/hardening.md),
 * which is why readiness also checks who owns the listener.
 */
function socketBindLines(port: number): string[] {
  return [`SocketBindAllow=tcp:${port}`, 'SocketBindDeny=any'];
}

/**
 * Security: link-local addresses are the cloud metadata service (169.254.169.254 hands out the
 * machine's instance-role credentials) and neighbours on the host's own links, which a gateway never
 * needs; an Installation that truly does sets `network.allowLinkLocal`. systemd enforces it with a
 * cgroup BPF program, on the unified cgroup v2 hierarchy only; preflight warns where it cannot.
 */
function linkLocalLines(allowed: boolean): string[] {
  return allowed ? [] : ['IPAddressDeny=169.254.0.0/16 fe80::/10'];
}

/**
 * Resource limits, each only when the Installation sets it, so a unit without them stays byte-identical
 * to the one earlier versions wrote (no restart on upgrade). MemorySwapMax=0 goes with MemoryMax=: with
 * swap a gateway past its limit would be swapped out, slowing the host, instead of being killed.
 * Past MemoryMax= the kernel kills it inside its own cgroup; OOMPolicy=stop (the default) stops the
 * unit and Restart=always starts it again.
 */
function limitLines(limits: GatewayLimits): string[] {
  for (const [name, value] of Object.entries(limits)) {
    const bounds = GATEWAY_LIMIT_BOUNDS[name as keyof GatewayLimits] as { min: number; max: number } | undefined;
    if (!bounds) throw new UnitRenderError(`unknown gateway limit ${JSON.stringify(name)}`);
    if (value !== undefined && (!Number.isInteger(value) || value < bounds.min || value > bounds.max)) throw new UnitRenderError(`gateway limit ${name} cannot be rendered into a unit`);
  }
  const lines: string[] = [];
  if (limits.memoryMaxMiB !== undefined) lines.push(`MemoryMax=${limits.memoryMaxMiB}M`, 'MemorySwapMax=0');
  if (limits.tasksMax !== undefined) lines.push(`TasksMax=${limits.tasksMax}`);
  if (limits.cpuWeight !== undefined) lines.push(`CPUWeight=${limits.cpuWeight}`);
  return lines;
}

/** Security: a quoted Environment= assignment with systemd's escapes; specifiers doubled. */
function environmentLine(name: string, value: string): string {
  if (!LAUNCH_ENV_NAME_PATTERN.test(name)) throw new UnitRenderError(`environment name ${JSON.stringify(name)} cannot be rendered`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UnitRenderError(`environment value of ${name} contains control characters`);
  const escaped = value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  return `Environment="${name}=${escaped}"`;
}

/**
 * Where OpenClaw keeps Node's compile cache, for the gateway and for native workspace setup.
 * PrivateTmp= empties /tmp on every start, where OpenClaw would keep it: a persistent one in home/
 * makes every start after the first warm (bounded by the helper). OpenClaw's launcher, finding the
 * cache already on, would start a second Node process to move it into a versioned subdirectory and
 * stay beside it (about 60 MiB more per Agent, and its own start before the gateway's); the second
 * name says that move is done, so the cache stays where it is, which Node already keys by its
 * version and each file's contents. An OpenClaw that ignores it starts the second process as before.
 */
export function compileCacheEnvironment(layout: Pick<AgentLayout, 'compileCache'>): Record<string, string> {
  return { NODE_COMPILE_CACHE: layout.compileCache, OPENCLAW_PACKAGED_COMPILE_CACHE_RESPAWNED: '1' };
}

/** Launch placeholders, one line each: the text of launch.env (a comment line when there are none). */
export function renderLaunchEnvironment(env: Readonly<Record<string, string>>): string {
  const problems = launchEnvironmentProblems(env);
  if (problems.length > 0) throw new UnitRenderError(`launch environment refused: ${problems.join('; ')}`);
  const lines = Object.keys(env)
    .sort()
    .map((name) => environmentFileLine(name, env[name] ?? ''));
  return [LAUNCH_ENV_HEADER, ...lines, ''].join('\n');
}

const LAUNCH_ENV_HEADER = '# Launch placeholders of beforeWorkloadStart hooks, loaded by systemd as root.';

/**
 * Security: one `NAME="value"` line of an EnvironmentFile=. Inside double quotes systemd's env-file
 * parser reads a backslash before a backslash, ", ` or $ as that character alone, and keeps any other backslash
 * as it is; it expands neither specifiers nor variables there. Control characters are refused (a
 * newline would begin a line of its own).
 */
export function environmentFileLine(name: string, value: string): string {
  if (!LAUNCH_ENV_NAME_PATTERN.test(name)) throw new UnitRenderError(`environment name ${JSON.stringify(name)} cannot be rendered`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UnitRenderError(`environment value of ${name} contains control characters`);
  return `${name}="${value.replace(/[\\"`$]/g, (c) => `\\${c}`)}"`;
}

/**
 * The unit directory, and systemd's configuration directory when it is another: there a unit kept
 * outside it has its load-path link and every unit its wants link, which name each sibling's unit.
 */
function hiddenUnitDirs(unitDirectory: string): string[] {
  return unitDirectory === SYSTEMD_CONFIG_DIR ? [unitDirectory] : [unitDirectory, SYSTEMD_CONFIG_DIR];
}

/** Security: the sandbox hides the root and the unit directories, so a program there could never start. */
function driverDirProblem(path: string, dirs: readonly string[]): string | undefined {
  const hidden = dirs.find((dir) => path === dir || path.startsWith(`${dir}/`));
  return hidden && `is under ${hidden}, which the gateway unit's sandbox hides from the gateway`;
}

function commentValue(value: string): string {
  if (!/^[\x21-\x7e]+$/.test(value)) throw new UnitRenderError('IDs in the unit header must be printable ASCII without spaces');
  return value;
}
