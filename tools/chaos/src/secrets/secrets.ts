// The secrets section: secrets never leak. A deployment carries a unique document sentinel and hook
// placeholders, another one workspace documents (delivered by the real OpenClaw's native setup) with
// their own sentinel; the managed password is read back from the host. Controller logs, every error
// message, the operator CLI's output, the gateway journal, process argv on both sides (sampled
// while operations run), and what another account on the host can read (files under the root and
// the unit directory, every gateway unit's systemd properties) are searched for all of them in
// every encoding.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { agentLayout, GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { ComputeError, type AgentRevision, type LifecycleDriver } from '@occ-ssh/controller';
import { collect } from '@occ-ssh/ssh-client';
import { controller, installationYaml, memoryLogger } from '../host/controllers.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, UNIT_DIR } from '@occ-ssh/test-support';
import { describeStart, measureRealGateway } from './real-gateway-bound.js';
import type { Rng } from '../campaign/rng.js';
import { findSightings, helperInvocations, type Corpus, type Secret, type Sighting } from './sightings.js';
import type { HostLink } from '../host/ssh.js';

const CLI_PATH = fileURLToPath(new URL('../../../../apps/controller/bin/occ-ssh.js', import.meta.url));
const BUILT_CLI = fileURLToPath(new URL('../../../../dist/apps/controller/occ-ssh.js', import.meta.url));

export interface SecretsResult {
  sightings: Sighting[];
  /** What was searched: corpus name and size, so an empty corpus cannot pass unnoticed. */
  corpora: { name: string; bytes: number }[];
  argvSamples: { host: number; local: number };
  /** Lines of the argv samples that were helper invocations (`<node> - <argument>`). */
  helperInvocationsSampled: { host: number; local: number };
  problems: string[];
}

/**
 * In every workspace document the crash-point and kill lanes deliver (fixture-args.ts setupArgs); a
 * fresh one per run. Nothing those lanes collect (audit lines, journals, argv, the results file) may
 * show it in any encoding.
 */
export const LANE_DOCUMENT_SENTINEL = `lane-document-sentinel-${randomBytes(12).toString('hex')}`;

/** Searches what the lanes collected for their document sentinel. */
export function laneSightings(corpora: readonly Corpus[]): Sighting[] {
  return findSightings([{ name: 'lane workspace document sentinel', value: LANE_DOCUMENT_SENTINEL }], corpora);
}

/** What a lane's host kept once the lane is done: every helper audit line, and the whole journal (gateway and native-setup units, systemd). */
export async function laneJournals(link: HostLink, lane: string): Promise<Corpus[]> {
  const audit = await link.run(['journalctl', '--no-pager', '-o', 'cat', '_UID=0', '_TRANSPORT=syslog', 'SYSLOG_IDENTIFIER=occ-ssh-helper']);
  // Every journal namespace: the gateways and native setup log into their own (libs/markers unit.ts).
  const journal = await link.run(['journalctl', '--namespace=*', '--no-pager', '-o', 'short-iso']);
  return [
    { name: `${lane}: helper audit lines`, text: audit },
    { name: `${lane}: host journal`, text: journal },
  ];
}

/** Samples `ps -eo args` (host over the shared connection, and locally) until `done` settles. */
export async function sampleArgv<T>(link: HostLink, run: () => Promise<T>, into: { host: string[]; local: string[] }): Promise<T> {
  let finished = false;
  const pending = run().finally(() => (finished = true));
  const host = (async () => {
    while (!finished) {
      const out = await link.exec(['ps', '-eo', 'args', '--no-headers', '-ww']);
      into.host.push(out.stdout);
      await sleep(100);
    }
  })();
  const local = (async () => {
    while (!finished) {
      into.local.push((await collect('ps', ['-eo', 'args', '--no-headers', '-ww'], { timeoutMs: 30_000 })).stdout);
      await sleep(200);
    }
  })();
  try {
    return await pending;
  } finally {
    await Promise.all([host, local]);
  }
}

/** The operator CLI's exit and everything it printed (stdout and stderr in the order they came), to search. */
async function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  const chunks: Buffer[] = [];
  const keep = (chunk: Buffer) => void chunks.push(chunk);
  const r = await collect(process.execPath, [...process.execArgv, CLI_PATH, ...args], { timeoutMs: 10 * 60_000, stopOnOverflow: false, onStdout: keep, onStderr: keep });
  return { code: r.exitCode, output: Buffer.concat(chunks).toString('utf8') };
}

/** An account that is neither root nor the Agent: what any other account on the host can read, it can. */
const OTHER = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--'];

/**
 * As another account: the contents of every regular file under the root and the unit directory it
 * can open (root lists the paths, so a file in a directory it cannot list is tried too, by name, as
 * a sibling who knows the layout would), one `path:line` per line, and `systemctl show --all` of
 * every gateway unit, asked over D-Bus as that account.
 */
async function readableByOthers(link: HostLink): Promise<{ files: string; properties: string; units: number }> {
  const paths = await link.run(['find', ROOT, UNIT_DIR, '-type', 'f', '-print0']);
  const files = (await link.exec([...OTHER, 'xargs', '-0', '-r', 'grep', '-a', '-H', '-s', '', '--'], { input: paths })).stdout;
  const listed = await link.run(['systemctl', 'list-units', '--all', '--plain', '--no-legend', '--type=service', 'openclaw-enterprise-gateway-*']);
  const units = listed
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((unit) => unit.endsWith('.service'));
  const properties = units.length === 0 ? '' : (await link.exec([...OTHER, 'systemctl', 'show', '--all', ...units])).stdout;
  return { files, properties, units: units.length };
}

/**
 * `occ-ssh status` and a `deploy` of a revision that never becomes ready, both with --json and
 * --verbose, argv sampled while they run: what they print, and what was wrong with how they ended.
 */
async function runOperatorCli(
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

const describe = (error: unknown) => (error instanceof ComputeError ? `${error.code} ${error.failure}: ${error.message} ${JSON.stringify(error.details)}` : String(error));

/**
 * Returns the section's result and a scanner that searches more text for the same secrets (the
 * campaign's own results file, once every section has finished) without handing the secrets out.
 */
export async function runSecrets(link: HostLink, rng: Rng, progress: (line: string) => void): Promise<{ result: SecretsResult; scan: (corpora: Corpus[]) => Sighting[] }> {
  const docSentinel = `doc-sentinel-${rng.hex(20)}`;
  const placeholder = `opaque-chaos-${rng.hex(20)}`;
  const failingPlaceholder = `opaque-chaos-${rng.hex(20)}`;
  const hookSecret = `hook-secret-${rng.hex(20)}`;
  const workspaceSentinel = `workspace-sentinel-${rng.hex(20)}`;
  const problems: string[] = [];
  const errors: string[] = [];
  const argv = { host: [] as string[], local: [] as string[] };
  const log = memoryLogger();
  const iam: LifecycleDriver = {
    id: 'iam-chaos',
    capability: 'iam',
    implementation: 'chaos/iam',
    computeLifecycleHooks: {
      async beforeWorkloadStart(revision, launch) {
        launch.environment.OCC_CHAOS_TOKEN = revision.revision === 2 ? failingPlaceholder : placeholder;
      },
    },
  };
  const failingHook: LifecycleDriver = {
    id: 'configuration-chaos',
    capability: 'configuration',
    implementation: 'chaos/configuration',
    computeLifecycleHooks: {
      async beforeWorkloadStart() {
        throw new Error(`hook failed holding ${hookSecret}`);
      },
    },
  };
  const namespace = { id: 'ns-secrets', name: 'secrets' };
  const binding = { namespace, agent: { id: 'agent-secrets', namespaceId: namespace.id, servicePrincipalId: 'sp-secrets' } };
  const revision = (number: number, fixture: Record<string, unknown>): AgentRevision => ({
    id: `rev-secrets-${number}`,
    revision: number,
    namespaceId: namespace.id,
    agentId: binding.agent.id,
    servicePrincipalId: binding.agent.servicePrincipalId,
    harness: { id: 'openclaw', version: '1.0.0', mode: 'embedded' },
    compute: { id: 'compute-ssh', implementation: 'occ/ssh' },
    harnessAuth: { method: 'runtime' },
    configuration: { gateway: { mode: 'local', bind: 'loopback' }, 'x-sentinel': docSentinel, fixtureGateway: fixture },
  });
  const driver = controller(link.host, [namespace.name], { logger: log.logger, hooks: [iam], readinessTimeoutMs: 60_000 });
  // A second controller (same logger, same hooks) with a short readiness bound, for the activation that never becomes ready.
  const impatient = controller(link.host, [namespace.name], { logger: log.logger, hooks: [iam], readinessTimeoutMs: 3000 });
  const layout = agentLayout(ROOT, UNIT_DIR, namespace.id, binding.agent.id);
  const wsBinding = { namespace, agent: { id: 'agent-secrets-ws', namespaceId: namespace.id, servicePrincipalId: 'sp-secrets-ws' } };
  const wsLayout = agentLayout(ROOT, UNIT_DIR, namespace.id, wsBinding.agent.id);
  // The real gateway gets the most an activation may wait, and the machine is measured (real-gateway-bound.ts).
  const realStart = await measureRealGateway(link);
  progress(`secrets: ${describeStart(realStart)}`);
  const native = controller(link.host, [namespace.name], { logger: log.logger, realOpenClaw: true, readinessTimeoutMs: realStart.readinessMs });
  const work = mkdtempSync(`${tmpdir()}/occ-chaos-secrets-`);
  const cliOutput: string[] = [];
  const others = { files: [] as string[], properties: [] as string[], units: 0 };
  const readOthers = async () => {
    const seen = await readableByOthers(link);
    others.files.push(seen.files);
    others.properties.push(seen.properties);
    others.units = Math.max(others.units, seen.units);
  };
  let password: string;
  let delivered: boolean;
  let wsDelivered = false;
  try {
    if (!(await driver.ensureNamespace(namespace)).namespaceReady) throw new Error('secrets: ensureNamespace failed');
    driver.bindAgent(binding);
    const good = revision(1, { readyAfterMs: 1500 });
    await sampleArgv(link, () => driver.prepareRevision(good), argv);
    await sampleArgv(link, () => driver.activateRevision(good), argv);
    await readOthers();
    password = (await link.run(['cat', layout.passwordFile])).trim().replace(/^OPENCLAW_GATEWAY_PASSWORD=/, '');
    // The pattern goes on grep's stdin, never on an argv the sampler could see.
    delivered = (await link.exec(['grep', '-rlF', '-f', '-', ROOT], { input: docSentinel })).stdout.trim() !== '';
    if (password.length < 20) problems.push('could not read the managed password back from the host');

    // Workspace documents: delivered by native setup, then refused when malformed or for another Agent.
    // A failure here is this part's problem: the rest of the section still runs and is judged.
    const nativeDocuments = async () => {
      native.bindAgent(wsBinding);
      const documents = { 'SOUL.md': `# SOUL.md\n\n${workspaceSentinel}\n`, 'USER.md': `# USER.md\n\n${workspaceSentinel}-user\n` };
      const setup = (files: Record<string, string>, agentId = wsBinding.agent.id) => ({
        harnessAuth: { method: 'runtime' },
        secretEnvironment: [],
        workspaceSetup: { id: 'setup-secrets', namespaceId: namespace.id, agentId, files, completed: false },
      });
      const wsRevision = {
        ...revision(1, {}),
        id: 'rev-secrets-ws-1',
        agentId: wsBinding.agent.id,
        servicePrincipalId: wsBinding.agent.servicePrincipalId,
        configuration: { gateway: { mode: 'local', bind: 'loopback' } },
      };
      await sampleArgv(link, () => native.prepareRevision(wsRevision, setup(documents)), argv);
      await sampleArgv(link, () => native.activateRevision(wsRevision, setup(documents)), argv);
      wsDelivered = (await link.exec(['grep', '-rlF', '-f', '-', `${wsLayout.state}/workspace`], { input: workspaceSentinel })).stdout.trim() !== '';
      for (const bad of [setup({ 'SOUL.md': `${workspaceSentinel}\0` }), setup({ 'TOOLS.md': workspaceSentinel }), setup(documents, binding.agent.id)]) {
        await native.prepareRevision(wsRevision, bad).then(
          () => problems.push('a malformed workspace setup was admitted'),
          (error: unknown) => errors.push(describe(error)),
        );
      }
    };
    await nativeDocuments().catch((error: unknown) => problems.push(`workspace documents by native setup (${describeStart(realStart)}): ${describe(error)}`));
    await readOthers();

    // Failures: an activation that never becomes ready, a plaintext password, and a failing hook.
    const never = revision(2, { neverReady: true });
    await driver.prepareRevision(never);
    impatient.bindAgent(binding);
    await sampleArgv(
      link,
      () =>
        impatient.activateRevision(never).then(
          () => problems.push('a never-ready activation succeeded'),
          (error: unknown) => errors.push(describe(error)),
        ),
      argv,
    );
    await readOthers(); // the failed activation's placeholder is still the unit's
    await driver.prepareRevision({ ...revision(3, {}), configuration: { gateway: { auth: { mode: 'password', password: docSentinel } } } }).then(
      () => problems.push('a plaintext password was admitted'),
      (error: unknown) => errors.push(describe(error)),
    );
    // Recovery goes forward with a new revision: activation refuses the older `good` once `never` is current.
    const recovery = revision(4, { readyAfterMs: 1500 });
    await driver.prepareRevision(recovery);
    const failing = controller(link.host, [namespace.name], { logger: log.logger, hooks: [iam, failingHook] });
    failing.bindAgent(binding);
    await failing.activateRevision(recovery).then(
      () => problems.push('a failing hook did not stop the launch'),
      (error: unknown) => errors.push(describe(error)),
    );
    await failing.close();
    await driver.activateRevision(recovery);

    // The operator CLI: status and a deploy whose activation never becomes ready, with --json and --verbose.
    const cli = await runOperatorCli(link, work, namespace.name, (number) => ({ namespace, ...revision(number, { neverReady: true }) }), argv);
    cliOutput.push(...cli.output);
    problems.push(...cli.problems);
    await driver.deleteNamespace(namespace);
  } finally {
    await driver.close();
    await impatient.close();
    await native.close();
    rmSync(work, { recursive: true, force: true });
  }

  const journal = (await link.exec(['journalctl', `--namespace=+${GATEWAY_LOG_NAMESPACE}`, '--no-pager', '-o', 'cat', '-u', layout.unitName, '-u', wsLayout.unitName])).stdout;
  const secrets: Secret[] = [
    { name: 'document sentinel', value: docSentinel },
    { name: 'launch placeholder', value: placeholder },
    { name: 'launch placeholder of a failed activation', value: failingPlaceholder },
    { name: 'text a failing hook threw', value: hookSecret },
    { name: 'workspace document sentinel', value: workspaceSentinel },
  ];
  if (password) secrets.push({ name: 'managed gateway password', value: password });
  const corpora: Corpus[] = [
    { name: 'controller logs', text: log.text() },
    { name: 'error messages', text: errors.join('\n') },
    { name: 'CLI output', text: cliOutput.join('\n') },
    { name: 'gateway journal', text: journal },
    { name: 'host argv', text: argv.host.join('\n'), argv: true },
    { name: 'local argv', text: argv.local.join('\n'), argv: true },
    { name: 'files other accounts can read under the root and the unit directory', text: others.files.join('\n') },
    { name: 'gateway unit properties (systemctl show) as another account', text: others.properties.join('\n') },
  ];
  const sightings = findSightings(secrets, corpora);
  // The search must have had something to find: helpers were caught on both argvs while they ran,
  // and the document with its sentinel did reach the host (through stdin).
  const helperInvocationsSampled = { host: helperInvocations(argv.host.join('\n')), local: helperInvocations(argv.local.join('\n')) };
  if (helperInvocationsSampled.host === 0 || helperInvocationsSampled.local === 0)
    problems.push(`helper invocations sampled on argv: ${helperInvocationsSampled.host} on the host, ${helperInvocationsSampled.local} locally`);
  if (!delivered) problems.push('the document sentinel never reached the host');
  if (!wsDelivered) problems.push("the workspace document sentinel never reached the Agent's workspace");
  // Both reads must have seen something: the unit files are world-readable, and the Agent's unit ran.
  if (others.units === 0 || !others.properties.join('').includes(`Id=${layout.unitName}`)) problems.push("another account's systemctl show saw no gateway unit");
  if (!others.files.join('').includes(`${layout.unitFile}:`)) problems.push("another account's file read did not reach the Agent's unit file");
  progress(`secrets: ${sightings.length} sightings; ${helperInvocationsSampled.host} helper invocations sampled on the host argv, ${helperInvocationsSampled.local} locally`);
  return {
    result: {
      sightings,
      corpora: corpora.map((corpus) => ({ name: corpus.name, bytes: Buffer.byteLength(corpus.text) })),
      argvSamples: { host: argv.host.length, local: argv.local.length },
      helperInvocationsSampled,
      problems,
    },
    scan: (more) => findSightings(secrets, more),
  };
}
