// Pure renderer of the per-Agent systemd gateway unit, and the check of its ownership header.
import { LAUNCH_ENV_NAME_PATTERN, launchEnvironmentProblems, safePathProblem } from '@occ-ssh/protocol';
import type { AgentLayout } from './layout.js';

export interface UnitInput {
  namespaceId: string;
  agentId: string;
  revisionId: string;
  account: string;
  nodePath: string;
  openclawPath: string;
  port: number;
  layout: AgentLayout;
  /** Load the per-Agent gateway-password.env (password auth, or trusted proxy opting into it). */
  managedPassword: boolean;
  launchEnvironment: Readonly<Record<string, string>>;
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

export function renderUnit(input: UnitInput): string {
  const { layout } = input;
  const paths = { nodePath: input.nodePath, openclawPath: input.openclawPath, 'Agent directory': layout.dir };
  for (const [what, value] of Object.entries(paths)) {
    const problem = safePathProblem(value);
    if (problem) throw new UnitRenderError(`${what} cannot be rendered into a unit: ${problem}`);
  }
  // Security: only a per-Agent account name (prefix, hyphen, 12 hex) may run a gateway; never root.
  if (!/^[a-z_][a-z0-9_-]{0,18}-[0-9a-f]{12}$/.test(input.account)) throw new UnitRenderError('account name cannot be rendered into a unit');
  if (!Number.isInteger(input.port) || input.port < 1024 || input.port > 65535) {
    throw new UnitRenderError('port cannot be rendered into a unit');
  }
  const problems = launchEnvironmentProblems(input.launchEnvironment);
  if (problems.length > 0) throw new UnitRenderError(`launch environment refused: ${problems.join('; ')}`);

  const launch = Object.keys(input.launchEnvironment)
    .sort()
    .map((name) => environmentLine(name, input.launchEnvironment[name] ?? ''));
  return [
    unitOwnershipHeader(input.namespaceId, input.agentId),
    `# X-OCC-Revision-Id=${commentValue(input.revisionId)}`,
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
    ...(input.managedPassword ? [`EnvironmentFile=${layout.passwordFile}`] : []),
    `EnvironmentFile=-${layout.operatorEnvFile}`,
    ...launch,
    `ExecStart=${input.nodePath} ${input.openclawPath} gateway --port ${input.port}`,
    'Restart=always',
    'RestartSec=2',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=30',
    'NoNewPrivileges=true',
    'PrivateTmp=true',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** Security: a quoted Environment= assignment with systemd's escapes; specifiers doubled. */
function environmentLine(name: string, value: string): string {
  if (!LAUNCH_ENV_NAME_PATTERN.test(name)) throw new UnitRenderError(`environment name ${JSON.stringify(name)} cannot be rendered`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UnitRenderError(`environment value of ${name} contains control characters`);
  const escaped = value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  return `Environment="${name}=${escaped}"`;
}

function commentValue(value: string): string {
  if (!/^[\x21-\x7e]+$/.test(value)) throw new UnitRenderError('IDs in the unit header must be printable ASCII without spaces');
  return value;
}
