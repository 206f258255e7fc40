// OpenClaw's own `setup --baseline`, run as the Agent's account with the gateway unit's environment,
// bounded in time; and what the installed OpenClaw build says about itself (version, stock documents).
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { sha256Hex, type AgentLayout } from '@occ-ssh/markers';
import { ComputeError, WORKSPACE_FILE_NAMES } from '@occ-ssh/protocol';
import { HOST_PATH } from '../system.js';
import { asAccount, asAccountArgv, runBounded, type AccountIds } from './as-account.js';

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
}

/** Where the scratch configuration lives during a run: the Agent's own state/, removed afterwards. */
function scratchDir(layout: AgentLayout): string {
  return `${layout.state}/.occ-workspace-setup`;
}

export async function runNativeSetup(run: NativeSetupRun, signal: AbortSignal, timeoutMs: number): Promise<void> {
  const { layout, account, nodePath } = run;
  const scratch = scratchDir(layout);
  await asAccount(nodePath, account, { op: 'remove', dir: scratch }, signal);
  await asAccount(nodePath, account, { op: 'write', dir: scratch, mkdir: true, files: [{ name: 'openclaw.json', content: run.configuration }] }, signal);
  const env = {
    PATH: HOST_PATH,
    LANG: 'C.UTF-8',
    HOME: layout.home,
    OPENCLAW_STATE_DIR: layout.state,
    OPENCLAW_CONFIG_PATH: `${scratch}/openclaw.json`,
    OPENCLAW_GATEWAY_PORT: String(run.port),
    NODE_COMPILE_CACHE: layout.compileCache,
  };
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(Math.max(1000, timeoutMs))]);
  let code: number;
  try {
    // `--baseline` makes config, workspace and session folders only: no onboarding, no gateway.
    ({ code } = await runBounded('setpriv', [...asAccountArgv(account), nodePath, run.openclawPath, 'setup', '--baseline'], { env, cwd: layout.home, signal: bounded, output: false }));
  } catch (error) {
    if (signal.aborted) throw error;
    if (bounded.aborted) throw new ComputeError('timeout', `native openclaw setup did not finish within ${timeoutMs} ms; it was killed`, { path: layout.state });
    throw error;
  }
  await asAccount(nodePath, account, { op: 'remove', dir: scratch }, signal);
  if (code !== 0) throw new ComputeError('host-command', `native openclaw setup exited with code ${code} (its output is suppressed so no document text can leak)`, { path: layout.state });
}
