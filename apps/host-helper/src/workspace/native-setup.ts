// OpenClaw's own `setup --baseline`, run as the Agent's account in a transient unit with the gateway
// unit's environment, sandbox and limits, bounded in time; and what the installed OpenClaw build says about itself (version, stock documents).
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { compileCacheEnvironment, renderSandbox, sha256Hex, UnitRenderError, type AgentLayout } from '@occ-ssh/markers';
import { ComputeError, WORKSPACE_FILE_NAMES, type GatewayLimits } from '@occ-ssh/protocol';
import { systemctlArgv, systemdRunArgv } from '../run/commands.js';
import { HOST_PATH, type HostRunner } from '../run/system.js';
import { asAccount, type AccountIds } from './as-account.js';

/** The installed OpenClaw build: its version and the SHA-256 of each document as native setup writes it. */
export interface OpenClawBuild {
  version: string;
  stock: Partial<Record<string, string>>;
}

/** Native setup writes each template without its front matter (checked against 2026.9.6 by the real-host tests). */
export function stockText(template: string): string {
  return template.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '').replace(/^\s+/, '');
}

/** Reads the root-installed package beside the configured entry file; a template it lacks has no stock form. */
export function readOpenClawBuild(openclawPath: string): OpenClawBuild {
  const dir = dirname(openclawPath);
  let version = 'unknown';
  try {
    const found = (JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { version?: unknown }).version;
    if (typeof found === 'string' && /^[0-9A-Za-z.+-]{1,64}$/.test(found)) version = found;
  } catch {
    // an entry file outside a package: no version to record
  }
  const stock: Partial<Record<string, string>> = {};
  for (const name of WORKSPACE_FILE_NAMES) {
    try {
      stock[name] = sha256Hex(stockText(readFileSync(`${dir}/docs/reference/templates/${name}`, 'utf8')));
    } catch {
      // no template: only an absent or already-submitted document may be replaced
    }
  }
  return { version, stock };
}

/** At most this long per native setup run, and never past the session's own deadline. */
export const NATIVE_SETUP_TIMEOUT_MS = 120_000;

export interface NativeSetupRun {
  nodePath: string;
  openclawPath: string;
  layout: AgentLayout;
  account: AccountIds;
  /** The staged openclaw.json; setup rewrites its config file, so it gets a scratch copy, never the snapshot. */
  configuration: string;
  port: number;
  /** The driver's root and the Installation's gateway limits: the gateway unit's sandbox is rendered from them. */
  root: string;
  limits?: GatewayLimits | undefined;
  allowLinkLocal?: boolean | undefined;
}

/** Where the scratch configuration lives during a run: the Agent's own state/, removed afterwards. */
function scratchDir(layout: AgentLayout): string {
  return `${layout.state}/.occ-workspace-setup`;
}

/** Time systemd gives a run past the helper's own bound, should the helper die before it can stop the unit. */
const UNIT_GRACE_SECONDS = 5;

/**
 * systemd-run's argv for one run. Security: OpenClaw loads plugins and configuration from the
 * Agent-writable state/ and home/, so native setup runs Agent code: it gets the gateway unit's sandbox
 * and limits, the account's uid and gid, and a cgroup systemd kills whole (every process it forked
 * included) when setup exits, is stopped, or outlives RuntimeMaxSec=. Its output goes nowhere, not even
 * the journal, since it could echo document text; the sandbox denies it the journal's native and syslog
 * sockets as it does the gateway, so it writes nothing to any journal.
 */
export function nativeSetupArgv(run: NativeSetupRun, timeoutMs: number): string[] {
  const { layout } = run;
  let sandbox: string[];
  try {
    sandbox = renderSandbox({ nodePath: run.nodePath, openclawPath: run.openclawPath, port: run.port, root: run.root, layout, limits: run.limits, allowLinkLocal: run.allowLinkLocal, current: false });
  } catch (error) {
    if (error instanceof UnitRenderError) throw new ComputeError('configuration', error.message);
    throw error;
  }
  const env = {
    LANG: 'C.UTF-8',
    HOME: layout.home,
    OPENCLAW_STATE_DIR: layout.state,
    OPENCLAW_CONFIG_PATH: `${scratchDir(layout)}/openclaw.json`,
    OPENCLAW_GATEWAY_PORT: String(run.port),
    ...compileCacheEnvironment(layout),
  };
  const properties = [
    `User=${run.account.uid}`,
    `Group=${run.account.gid}`,
    `WorkingDirectory=${layout.home}`,
    'StandardInput=null',
    'StandardOutput=null',
    'StandardError=null',
    'KillMode=control-group',
    'KillSignal=SIGKILL',
    `RuntimeMaxSec=${Math.ceil(timeoutMs / 1000) + UNIT_GRACE_SECONDS}`,
    ...sandbox,
  ];
  return [
    `--unit=${layout.setupUnitName}`,
    '--wait',
    '--collect',
    '--quiet',
    '--service-type=exec',
    ...Object.entries(env).map(([name, value]) => `--setenv=${name}=${value}`),
    ...properties.map((property) => `--property=${property}`),
    '--',
    run.nodePath,
    run.openclawPath,
    // `--baseline` makes config, workspace and session folders only: no onboarding, no gateway.
    'setup',
    '--baseline',
  ];
}

/** Stops the Agent's setup unit, waiting until every process of it is gone; a unit systemd does not know is already stopped. */
export async function stopNativeSetup(runner: HostRunner, unit: string): Promise<void> {
  await runner.run(systemctlArgv({ verb: 'stop', unit }), { timeoutMs: 60_000 });
}

export async function runNativeSetup(runner: HostRunner, run: NativeSetupRun, signal: AbortSignal, timeoutMs: number): Promise<void> {
  const { layout, account, nodePath } = run;
  const scratch = scratchDir(layout);
  await asAccount(runner, nodePath, account, { op: 'remove', dir: scratch }, signal);
  await asAccount(runner, nodePath, account, { op: 'write', dir: scratch, mkdir: true, files: [{ name: 'openclaw.json', content: run.configuration }] }, signal);
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(Math.max(1000, timeoutMs))]);
  let code: number;
  try {
    // stdin an empty pipe, as systemd-run has always been given.
    // Its own bound is past the one above, whose message names the setup: systemd-run runs as root and waits for the unit.
    const options = { env: { PATH: HOST_PATH, LANG: 'C.UTF-8', SYSTEMD_COLORS: '0' }, cwd: '/', stdin: '', signal: bounded, output: false, timeoutMs: Math.max(1000, timeoutMs) + 5000 };
    ({ code } = await runner.runChild(systemdRunArgv(nativeSetupArgv(run, timeoutMs)), options));
  } catch (error) {
    // systemd-run's own death leaves the unit running: stop it, so nothing of this run outlives the call.
    await stopNativeSetup(runner, layout.setupUnitName);
    if (signal.aborted) throw error;
    if (bounded.aborted) throw new ComputeError('timeout', `native openclaw setup did not finish within ${timeoutMs} ms; it was killed`, { path: layout.state });
    throw error;
  }
  await asAccount(runner, nodePath, account, { op: 'remove', dir: scratch }, signal);
  if (code !== 0) throw new ComputeError('host-command', `native openclaw setup exited with code ${code} (its output is suppressed so no document text can leak)`, { path: layout.state });
}
