// Test helper: installs a gateway (real OpenClaw or the fixture) on a host as a systemd unit under its own account.
import { sleep } from './process-identity.js';
import type { TestHost } from './host.js';

export interface GatewayUnitOptions {
  unit: string;
  account: string;
  port: number;
  password: string;
  /** The gateway program, run by the host's Node (24 or 26, as the image has it). */
  script: string;
  config: Record<string, unknown>;
  /** Extra [Service] lines, e.g. Restart=on-failure. */
  service?: string[];
}

export interface GatewayUnit {
  unit: string;
  account: string;
  home: string;
  stateDir: string;
  configPath: string;
  port: number;
  password: string;
}

/** The minimal native configuration OpenClaw starts with, password taken from the environment. */
export function openclawConfig(port: number): Record<string, unknown> {
  return {
    gateway: {
      mode: 'local',
      port,
      bind: 'loopback',
      auth: { mode: 'password', password: { source: 'env', provider: 'default', id: 'OPENCLAW_GATEWAY_PASSWORD' } },
    },
  };
}

function unitText(o: GatewayUnitOptions, g: GatewayUnit, nodePath: string): string {
  return [
    '[Unit]',
    `Description=Gateway under test (${o.unit})`,
    '',
    '[Service]',
    'Type=simple',
    `User=${o.account}`,
    `Group=${o.account}`,
    `Environment=HOME=${g.home}`,
    `Environment=OPENCLAW_STATE_DIR=${g.stateDir}`,
    `Environment=OPENCLAW_CONFIG_PATH=${g.configPath}`,
    `Environment=OPENCLAW_GATEWAY_PORT=${o.port}`,
    // The password stays out of the world-readable unit file.
    `EnvironmentFile=/etc/occ-gateways/${o.unit}.env`,
    `ExecStart=${nodePath} ${o.script} gateway --port ${o.port}`,
    ...(o.service ?? []),
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** Writes stdin to a file with the given owner and mode; the script is constant, paths are arguments. */
const WRITE_FILE = 'umask 077 && cat > "$1" && chown "$2" "$1" && chmod "$3" "$1"';

export async function writeHostFile(host: TestHost, file: string, content: string, owner = 'root:root', mode = '600'): Promise<void> {
  await host.run(['sh', '-c', WRITE_FILE, 'write-file', file, owner, mode], { input: content });
}

export async function installGatewayUnit(host: TestHost, o: GatewayUnitOptions): Promise<GatewayUnit> {
  const home = `/var/lib/${o.account}`;
  const g: GatewayUnit = { unit: o.unit, account: o.account, home, stateDir: `${home}/state`, configPath: `${home}/openclaw.json`, port: o.port, password: o.password };
  await host.run(['useradd', '--system', '--user-group', '--create-home', '--home-dir', home, '--shell', '/usr/sbin/nologin', o.account]);
  await host.run(['install', '-d', '-m', '700', '-o', o.account, '-g', o.account, g.stateDir]);
  await host.run(['install', '-d', '-m', '700', '/etc/occ-gateways']);
  await writeHostFile(host, g.configPath, `${JSON.stringify(o.config, null, 2)}\n`, `${o.account}:${o.account}`);
  await writeHostFile(host, `/etc/occ-gateways/${o.unit}.env`, `OPENCLAW_GATEWAY_PASSWORD=${o.password}\n`);
  await writeHostFile(host, `/etc/systemd/system/${o.unit}.service`, unitText(o, g, host.nodePath), 'root:root', '644');
  await host.run(['systemctl', 'daemon-reload']);
  return g;
}

export async function httpStatus(host: TestHost, port: number, path: string, headers: string[] = []): Promise<string> {
  const args = ['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', ...headers.flatMap((h) => ['-H', h]), `http://127.0.0.1:${port}${path}`];
  return (await host.exec(args)).stdout.trim();
}

/**
 * Polls on the host itself: one ssh session instead of one per probe, which on a 2-core machine
 * would otherwise compete with the gateway's own start-up for CPU. Constant script, values as arguments.
 */
const WAIT_STATUS =
  'end=$(( $(date +%s) + $3 )); while :; do c=$(curl -s -o /dev/null -w "%{http_code}" "$1"); ' + '[ "$c" = "$2" ] && exit 0; [ "$(date +%s)" -ge "$end" ] && { echo "$c"; exit 1; }; sleep 0.2; done';

/** Waits until the endpoint answers `want`; returns the time it took. */
export async function waitForStatus(host: TestHost, port: number, path: string, want: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  const seconds = String(Math.ceil(timeoutMs / 1000));
  const r = await host.exec(['sh', '-c', WAIT_STATUS, 'wait-status', `http://127.0.0.1:${port}${path}`, want, seconds], { timeoutMs: timeoutMs + 15_000 });
  if (r.code !== 0) throw new Error(`${path} on port ${port} answered ${r.stdout.trim() || 'nothing'} instead of ${want} for ${timeoutMs} ms`);
  return Date.now() - started;
}

export async function unitProperties(host: TestHost, unit: string, names: string[]): Promise<Record<string, string>> {
  const out = await host.run(['systemctl', 'show', unit, ...names.flatMap((n) => ['-p', n])]);
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** State and journal tail of a unit, for failure messages that explain themselves. */
export async function describeUnit(host: TestHost, unit: string): Promise<string> {
  const props = await unitProperties(host, unit, ['ActiveState', 'SubState', 'Result', 'ExecMainStatus', 'NRestarts', 'MainPID']).catch((e: Error) => e.message);
  const journal = await host.journal(unit).catch((e: Error) => e.message);
  return `${JSON.stringify(props)}\n${journal.trim().split('\n').slice(-30).join('\n')}`;
}

/** Waits until systemd reports the unit in one of the given states. */
export async function waitForActiveState(host: TestHost, unit: string, states: string[], timeoutMs: number): Promise<string> {
  const started = Date.now();
  for (;;) {
    const { ActiveState: state = '' } = await unitProperties(host, unit, ['ActiveState']);
    if (states.includes(state)) return state;
    if (Date.now() - started > timeoutMs) throw new Error(`${unit} stayed ${state}, wanted ${states.join('/')}`);
    await sleep(250);
  }
}
