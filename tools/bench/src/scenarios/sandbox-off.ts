// The drop-in that turns the gateway unit's sandbox off, for the restart figure's third variant.
// Its directives are read from the unit libs/markers renders, so a sandbox directive added there
// cannot stay on here unnoticed: one this file has no off value for makes it throw.
import { accountName, agentLayout, renderUnit } from '@occ-ssh/markers';

/** Directives of the rendered [Service] section that run the gateway rather than confine it. */
const RUNNING = new Set(['Type', 'User', 'Group', 'WorkingDirectory', 'Environment', 'EnvironmentFile', 'ExecStart', 'Restart', 'RestartSec', 'KillSignal', 'TimeoutStopSec']);

/** Left as rendered: no effect on a start's cost (a file mode mask, IPC clean-up at stop, keyrings, capabilities of a non-root account, journald's counts, the core limit). */
const KEPT = new Set(['UMask', 'RemoveIPC', 'KeyringMode', 'CapabilityBoundingSet', 'AmbientCapabilities', 'SystemCallErrorNumber', 'LogRateLimitIntervalSec', 'LogRateLimitBurst', 'LimitCORE']);

/** Each confining directive's value with the confinement off (an empty value resets a list). */
const OFF: Record<string, string> = {
  NoNewPrivileges: 'no',
  PrivateTmp: 'no',
  ProtectSystem: 'no',
  TemporaryFileSystem: '',
  BindPaths: '',
  BindReadOnlyPaths: '',
  InaccessiblePaths: '',
  ReadOnlyPaths: '',
  ProtectHome: 'no',
  PrivateDevices: 'no',
  DevicePolicy: 'auto',
  ProtectKernelTunables: 'no',
  ProtectKernelModules: 'no',
  ProtectKernelLogs: 'no',
  ProtectControlGroups: 'no',
  ProtectClock: 'no',
  ProtectHostname: 'no',
  ProtectProc: 'default',
  ProcSubset: 'all',
  PrivateUsers: 'no',
  PrivateIPC: 'no',
  RestrictNamespaces: 'no',
  RestrictRealtime: 'no',
  LockPersonality: 'no',
  RestrictAddressFamilies: '',
  SystemCallArchitectures: '',
  SystemCallFilter: '',
  // The system journal again, without the namespace's socket mounts.
  LogNamespace: '',
  SocketBindAllow: '',
  SocketBindDeny: '',
  IPAddressDeny: '',
};

/** The directive names of a unit's [Service] section, each once, in order. */
export function serviceDirectives(unit: string): string[] {
  const section = unit.split('\n[Service]\n')[1]?.split('\n[')[0] ?? '';
  return [
    ...new Set(
      section
        .split('\n')
        .filter((line) => /^[A-Za-z]+=/.test(line))
        .map((line) => line.slice(0, line.indexOf('='))),
    ),
  ];
}

/** A gateway unit as libs/markers renders it today. */
export function renderedUnit(): string {
  const layout = agentLayout('/var/lib/openclaw-enterprise', '/etc/systemd/system', 'ns-bench', 'agent-bench');
  return renderUnit({
    namespaceId: 'ns-bench',
    agentId: 'agent-bench',
    account: accountName('openclaw', 'ns-bench', 'agent-bench'),
    nodePath: '/usr/bin/node',
    openclawPath: '/usr/lib/node_modules/openclaw/openclaw.mjs',
    port: 18800,
    root: '/var/lib/openclaw-enterprise',
    layout,
    managedPassword: true,
  });
}

/** The confining directives of a unit (by default the one rendered today). */
export function sandboxDirectives(unit = renderedUnit()): string[] {
  return serviceDirectives(unit).filter((name) => !RUNNING.has(name) && !KEPT.has(name));
}

/** The drop-in's text: `[Service]` and every confining directive turned off. */
export function sandboxOffDropIn(unit = renderedUnit()): string {
  const lines = sandboxDirectives(unit).map((name) => {
    const off = OFF[name];
    if (off === undefined) throw new Error(`the gateway unit has a sandbox directive ${name} that the sandbox-off variant does not turn off: add it to tools/bench/src/sandbox-off.ts`);
    return `${name}=${off}`;
  });
  return ['[Service]', ...lines, ''].join('\n');
}
