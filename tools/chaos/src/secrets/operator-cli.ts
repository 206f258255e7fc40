// The operator CLI run as an operator would, with --json and --verbose, its argv sampled: what it printed.
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { collect } from '@occ-ssh/ssh-client';
import { installationYaml } from '../host/controllers.js';
import type { HostLink } from '../host/ssh.js';
import { sampleArgv } from './argv-sampler.js';

const CLI_PATH = fileURLToPath(new URL('../../../../apps/controller/bin/occ-ssh.js', import.meta.url));
const BUILT_CLI = fileURLToPath(new URL('../../../../dist/apps/controller/occ-ssh.js', import.meta.url));

/** The operator CLI's exit and everything it printed (stdout and stderr in the order they came), to search. */
async function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  const chunks: Buffer[] = [];
  const keep = (chunk: Buffer) => void chunks.push(chunk);
  const r = await collect(process.execPath, [...process.execArgv, CLI_PATH, ...args], { timeoutMs: 10 * 60_000, stopOnOverflow: false, onStdout: keep, onStderr: keep });
  return { code: r.exitCode, output: Buffer.concat(chunks).toString('utf8') };
}

/**
 * `occ-ssh status` and a `deploy` of a revision that never becomes ready, both with --json and
 * --verbose, argv sampled while they run: what they print, and what was wrong with how they ended.
 */
export async function runOperatorCli(
  link: HostLink,
  work: string,
  namespaceName: string,
  neverReady: (number: number) => { namespace: { id: string; name: string }; id: string; configuration: unknown },
  argv: { host: string[]; local: string[] },
): Promise<{ output: string[]; problems: string[] }> {
  if (!existsSync(BUILT_CLI)) return { output: [], problems: ['the CLI is not built (dist/apps/controller/occ-ssh.js): run the build first'] };
  const config = `${work}/installation.yaml`;
  writeFileSync(config, installationYaml(link.host, [namespaceName]));
  const revisionFile = `${work}/revision-1.json`;
  const { namespace, id, configuration } = neverReady(1);
  writeFileSync(
    revisionFile,
    JSON.stringify({ namespace, agent: { id: 'agent-secrets-cli', servicePrincipal: { id: 'sp-secrets-cli' } }, revision: { id: id.replace('secrets', 'secrets-cli'), number: 1, configuration } }),
  );
  const common = ['--config', config, '--ledger', `${work}/ledger.json`, '--json', '--verbose'];
  const output: string[] = [];
  for (const args of [
    ['status', ...common],
    ['deploy', ...common, '--revision', revisionFile, '--readiness-timeout', '3'],
  ]) {
    const result = await sampleArgv(link, () => runCli(args), argv);
    output.push(`$ occ-ssh ${args[0]} (exit ${String(result.code)})\n${result.output}`);
  }
  const problems: string[] = [];
  if (!output[0]?.includes('(exit 0)')) problems.push('occ-ssh status --json did not succeed');
  // The host answered not-ready: a retryable failure reported by a host (exit 4, not 75 for unreachable).
  if (!output[1]?.includes('(exit 4)')) problems.push('the failing CLI deploy did not exit 4 (a retryable failure the host reported)');
  return { output, problems };
}
