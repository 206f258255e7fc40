// The campaign's read-only checker and step runner on a host. One round trip runs a list of steps:
// `collect` (wait until no helper and no other ssh session is left, test the lock, list the tree,
// units and accounts), `helper` (the built helper with its header argument, the sealed operation and artifact on stdin,
// exactly as the controller runs it) and `sh` (a shell command: tree hashes, planted state).
// The runner (src/step-runner, bundled at build) is `node --input-type=commonjs -e <bundle>`, so
// `pgrep -f '^<node> - '` never matches it, only the helpers it or anyone else starts.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readHelperOutput, type HelperOutput, type SealedOperation } from '@occ-ssh/helper-call';
import { remoteCommand } from '@occ-ssh/ssh-client';
import type { Listing } from './listing.js';
import { helperArtifact, ROOT, UNIT_DIR, wireFor } from '@occ-ssh/test-support';
import { RUNTIME_USER } from './fixture-args.js';
import type { HostLink } from './ssh.js';

/** Built by `nx run @occ-ssh/chaos:build` from src/step-runner (esbuild, as the helper is bundled). */
export const STEP_RUNNER_PATH = fileURLToPath(new URL('../../../../dist/tools/chaos/step-runner.cjs', import.meta.url));
let runner: string | undefined;

function stepRunner(): string {
  if (!runner) {
    if (!existsSync(STEP_RUNNER_PATH)) throw new Error(`${STEP_RUNNER_PATH} is missing: run npx nx run @occ-ssh/chaos:build first`);
    runner = readFileSync(STEP_RUNNER_PATH, 'utf8');
  }
  return runner;
}

export interface CollectOptions {
  /** Wait for helpers to end first (default true); the wait is bounded by waitMs. */
  wait?: boolean;
  /** Also wait for every other ssh session to end (default true: a killed client's session may still start a helper). */
  waitSessions?: boolean;
  waitMs?: number;
}

/** `helper`: an encoded operation (sealed here as the controller seals it) or an exact wire form. */
export type Step = { collect: CollectOptions } | { helper: string | SealedOperation } | { sh: string };

export type StepResult = { listing: Listing } | ({ code: number | null; stdout: string; ms: number } & HelperOutput) | { code: number | null; stdout: string; stderr: string };

function runnerCommand(link: HostLink): string {
  return remoteCommand([link.nodePath, '--input-type=commonjs', '-e', stepRunner()]);
}

/** Runs `steps` in order on the host, in one round trip over the shared connection. */
export async function runSteps(link: HostLink, steps: readonly Step[]): Promise<StepResult[]> {
  const withDefaults = steps.map((step) =>
    'collect' in step ? { collect: { wait: true, waitSessions: true, waitMs: 200_000, ...step.collect } } : 'helper' in step ? { helper: wireFor(step.helper) } : step,
  );
  const needsHelper = steps.some((step) => 'helper' in step);
  const payload = JSON.stringify({
    root: ROOT,
    unitDir: UNIT_DIR,
    user: RUNTIME_USER,
    nodePath: link.nodePath,
    artifact: needsHelper ? helperArtifact().toString('base64') : null,
    steps: withDefaults,
  });
  const result = await link.muxCommand(runnerCommand(link), { input: payload, timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`step runner failed on ${link.host.name} (exit ${String(result.code)}): ${result.stderr.slice(0, 800)}`);
  const outputs = JSON.parse(result.stdout) as StepResult[];
  return outputs.map((output, index) => ('helper' in steps[index]! ? { ...output, ...readHelperOutput((output as { stdout: string }).stdout) } : output)) as StepResult[];
}

/** Listing of one round trip: wait for quiet, test the lock, list everything. */
export async function collect(link: HostLink, options: CollectOptions = {}): Promise<Listing> {
  const [result] = await runSteps(link, [{ collect: options }]);
  return listingOf(result);
}

export function listingOf(result: StepResult | undefined): Listing {
  if (!result || !('listing' in result)) throw new Error('expected a listing from the step runner');
  return result.listing;
}

export function helperOf(result: StepResult | undefined): { code: number | null; ms: number } & HelperOutput {
  if (!result || !('heartbeats' in result)) throw new Error('expected a helper result from the step runner');
  return result;
}

export function shOf(result: StepResult | undefined): string {
  if (!result || !('stderr' in result)) throw new Error('expected a shell result from the step runner');
  if (result.code !== 0) throw new Error(`remote shell step exited ${String(result.code)}: ${result.stderr.slice(0, 300)}`);
  return result.stdout;
}

/** The tree hash of the brief: every path's owner, mode, size and mtime under the root and the unit directory, plus passwd (and group). */
export const TREE_HASH = `find ${ROOT} ${UNIT_DIR} -printf '%p %u %g %m %s %T@\\n' 2>/dev/null | sort | sha256sum; getent passwd | sha256sum; getent group | sha256sum`;

export async function treeHash(link: HostLink): Promise<string> {
  return shOf((await runSteps(link, [{ sh: TREE_HASH }]))[0]).trim();
}
