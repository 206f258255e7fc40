// The secrets section: secrets never leak. A deployment carries a unique document sentinel and hook
// placeholders, another one workspace documents (delivered by the real OpenClaw's native setup) with
// their own sentinel; the managed password is read back from the host. Controller logs, every error
// message, the operator CLI's output, the gateway journal, process argv on both sides (sampled
// while operations run), and what another account on the host can read (files under the root and
// the unit directory, every gateway unit's systemd properties) are searched for all of them in
// every encoding.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { agentLayout, GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { ComputeError, type AgentRevision, type LifecycleDriver, type SshComputeDriver } from '@occ-ssh/controller';
import { ROOT, UNIT_DIR } from '@occ-ssh/test-support';
import { controller, memoryLogger } from '../host/controllers.js';
import type { Rng } from '../campaign/rng.js';
import type { HostLink } from '../host/ssh.js';
import { sampleArgv } from './argv-sampler.js';
import { runOperatorCli } from './operator-cli.js';
import { readableByOthers } from './other-accounts.js';
import { activateWithRetries, describeStart, measureRealGateway } from './real-gateway-bound.js';
import { findSightings, helperInvocations, type Corpus, type Secret, type Sighting } from './sightings.js';

export interface SecretsResult {
  sightings: Sighting[];
  /** What was searched: corpus name and size, so an empty corpus cannot pass unnoticed. */
  corpora: { name: string; bytes: number }[];
  argvSamples: { host: number; local: number };
  /** Lines of the argv samples that were helper invocations (`<node> - <argument>`). */
  helperInvocationsSampled: { host: number; local: number };
  problems: string[];
}

const describe = (error: unknown) => (error instanceof ComputeError ? `${error.code} ${error.failure}: ${error.message} ${JSON.stringify(error.details)}` : String(error));

/** The section's secrets, its Agents and what it collects as it goes. */
function newRun(link: HostLink, rng: Rng) {
  const values = {
    docSentinel: `doc-sentinel-${rng.hex(20)}`,
    placeholder: `opaque-chaos-${rng.hex(20)}`,
    failingPlaceholder: `opaque-chaos-${rng.hex(20)}`,
    hookSecret: `hook-secret-${rng.hex(20)}`,
    workspaceSentinel: `workspace-sentinel-${rng.hex(20)}`,
  };
  const iam: LifecycleDriver = {
    id: 'iam-chaos',
    capability: 'iam',
    implementation: 'chaos/iam',
    computeLifecycleHooks: {
      async beforeWorkloadStart(revision, launch) {
        launch.environment.OCC_CHAOS_TOKEN = revision.revision === 2 ? values.failingPlaceholder : values.placeholder;
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
    configuration: { gateway: { mode: 'local', bind: 'loopback' }, 'x-sentinel': values.docSentinel, fixtureGateway: fixture },
  });
  const wsBinding = { namespace, agent: { id: 'agent-secrets-ws', namespaceId: namespace.id, servicePrincipalId: 'sp-secrets-ws' } };
  const others = { files: [] as string[], properties: [] as string[], units: 0 };
  return {
    link,
    values,
    iam,
    namespace,
    binding,
    revision,
    wsBinding,
    layout: agentLayout(ROOT, UNIT_DIR, namespace.id, binding.agent.id),
    wsLayout: agentLayout(ROOT, UNIT_DIR, namespace.id, wsBinding.agent.id),
    problems: [] as string[],
    errors: [] as string[],
    argv: { host: [] as string[], local: [] as string[] },
    log: memoryLogger(),
    cliOutput: [] as string[],
    others,
    password: '',
    delivered: false,
    wsDelivered: false,
    /** What another account can read right now, added to what it could read before. */
    async readOthers() {
      const seen = await readableByOthers(link);
      others.files.push(seen.files);
      others.properties.push(seen.properties);
      others.units = Math.max(others.units, seen.units);
    },
  };
}

type SecretsRun = ReturnType<typeof newRun>;

/** A good deployment carrying the document sentinel and a launch placeholder; the managed password read back. */
async function deployGood(run: SecretsRun, driver: SshComputeDriver): Promise<void> {
  const { link, argv } = run;
  if (!(await driver.ensureNamespace(run.namespace)).namespaceReady) throw new Error('secrets: ensureNamespace failed');
  driver.bindAgent(run.binding);
  const good = run.revision(1, { readyAfterMs: 1500 });
  await sampleArgv(link, () => driver.prepareRevision(good), argv);
  await sampleArgv(link, () => driver.activateRevision(good), argv);
  await run.readOthers();
  run.password = (await link.run(['cat', run.layout.passwordFile])).trim().replace(/^OPENCLAW_GATEWAY_PASSWORD=/, '');
  // The pattern goes on grep's stdin, never on an argv the sampler could see.
  run.delivered = (await link.exec(['grep', '-rlF', '-f', '-', ROOT], { input: run.values.docSentinel })).stdout.trim() !== '';
  if (run.password.length < 20) run.problems.push('could not read the managed password back from the host');
}

/** Workspace documents: delivered by native setup, then refused when malformed or for another Agent. */
async function nativeDocuments(run: SecretsRun, native: SshComputeDriver, progress: (line: string) => void): Promise<void> {
  const { link, argv, wsBinding, values } = run;
  native.bindAgent(wsBinding);
  const documents = { 'SOUL.md': `# SOUL.md\n\n${values.workspaceSentinel}\n`, 'USER.md': `# USER.md\n\n${values.workspaceSentinel}-user\n` };
  const setup = (files: Record<string, string>, agentId = wsBinding.agent.id) => ({
    harnessAuth: { method: 'runtime' },
    secretEnvironment: [],
    workspaceSetup: { id: 'setup-secrets', namespaceId: run.namespace.id, agentId, files, completed: false },
  });
  const wsRevision = {
    ...run.revision(1, {}),
    id: 'rev-secrets-ws-1',
    agentId: wsBinding.agent.id,
    servicePrincipalId: wsBinding.agent.servicePrincipalId,
    configuration: { gateway: { mode: 'local', bind: 'loopback' } },
  };
  await sampleArgv(link, () => native.prepareRevision(wsRevision, setup(documents)), argv);
  const activate = () => native.activateRevision(wsRevision, setup(documents));
  await sampleArgv(
    link,
    () => activateWithRetries(activate, (attempt, error) => progress(`secrets: the real gateway's activation ${attempt} ended not-ready, activating again: ${error.message}`)),
    argv,
  );
  run.wsDelivered = (await link.exec(['grep', '-rlF', '-f', '-', `${run.wsLayout.state}/workspace`], { input: values.workspaceSentinel })).stdout.trim() !== '';
  for (const bad of [setup({ 'SOUL.md': `${values.workspaceSentinel}\0` }), setup({ 'TOOLS.md': values.workspaceSentinel }), setup(documents, run.binding.agent.id)]) {
    await native.prepareRevision(wsRevision, bad).then(
      () => run.problems.push('a malformed workspace setup was admitted'),
      (error: unknown) => run.errors.push(describe(error)),
    );
  }
}

/** Failures: an activation that never becomes ready, a plaintext password, and a failing hook. */
async function failures(run: SecretsRun, driver: SshComputeDriver, impatient: SshComputeDriver): Promise<void> {
  const { link, problems, errors } = run;
  const refusedAs = (what: string) => [() => problems.push(what), (error: unknown) => errors.push(describe(error))] as const;
  const never = run.revision(2, { neverReady: true });
  await driver.prepareRevision(never);
  impatient.bindAgent(run.binding);
  await sampleArgv(link, () => impatient.activateRevision(never).then(...refusedAs('a never-ready activation succeeded')), run.argv);
  await run.readOthers(); // the failed activation's placeholder is still the unit's
  await driver
    .prepareRevision({ ...run.revision(3, {}), configuration: { gateway: { auth: { mode: 'password', password: run.values.docSentinel } } } })
    .then(...refusedAs('a plaintext password was admitted'));
  // Recovery goes forward with a new revision: activation refuses the older `good` once `never` is current.
  const recovery = run.revision(4, { readyAfterMs: 1500 });
  await driver.prepareRevision(recovery);
  const failingHook: LifecycleDriver = {
    id: 'configuration-chaos',
    capability: 'configuration',
    implementation: 'chaos/configuration',
    computeLifecycleHooks: {
      async beforeWorkloadStart() {
        throw new Error(`hook failed holding ${run.values.hookSecret}`);
      },
    },
  };
  const failing = controller(link.host, [run.namespace.name], { logger: run.log.logger, hooks: [run.iam, failingHook] });
  failing.bindAgent(run.binding);
  await failing.activateRevision(recovery).then(...refusedAs('a failing hook did not stop the launch'));
  await failing.close();
  await driver.activateRevision(recovery);
}

/**
 * Returns the section's result and a scanner that searches more text for the same secrets (the
 * campaign's own results file, once every section has finished) without handing the secrets out.
 */
export async function runSecrets(link: HostLink, rng: Rng, progress: (line: string) => void): Promise<{ result: SecretsResult; scan: (corpora: Corpus[]) => Sighting[] }> {
  const run = newRun(link, rng);
  const { namespace, log } = run;
  const driver = controller(link.host, [namespace.name], { logger: log.logger, hooks: [run.iam], readinessTimeoutMs: 60_000 });
  // A second controller (same logger, same hooks) with a short readiness bound, for the activation that never becomes ready.
  const impatient = controller(link.host, [namespace.name], { logger: log.logger, hooks: [run.iam], readinessTimeoutMs: 3000 });
  // The real gateway gets the most an activation may wait, and the machine is measured (real-gateway-bound.ts).
  const realStart = await measureRealGateway(link);
  progress(`secrets: ${describeStart(realStart)}`);
  const native = controller(link.host, [namespace.name], { logger: log.logger, realOpenClaw: true, readinessTimeoutMs: realStart.readinessMs });
  const work = mkdtempSync(`${tmpdir()}/occ-chaos-secrets-`);
  try {
    await deployGood(run, driver);
    // A failure here is this part's problem: the rest of the section still runs and is judged.
    await nativeDocuments(run, native, progress).catch((error: unknown) => run.problems.push(`workspace documents by native setup (${describeStart(realStart)}): ${describe(error)}`));
    await run.readOthers();
    await failures(run, driver, impatient);
    // The operator CLI: status and a deploy whose activation never becomes ready, with --json and --verbose.
    const cli = await runOperatorCli(link, work, namespace.name, (number) => ({ namespace, ...run.revision(number, { neverReady: true }) }), run.argv);
    run.cliOutput.push(...cli.output);
    run.problems.push(...cli.problems);
    await driver.deleteNamespace(namespace);
  } finally {
    await driver.close();
    await impatient.close();
    await native.close();
    rmSync(work, { recursive: true, force: true });
  }
  return searched(run, progress);
}

/** Every secret searched for in everything the section collected, and the checks that the search had something to find. */
async function searched(run: SecretsRun, progress: (line: string) => void): Promise<{ result: SecretsResult; scan: (corpora: Corpus[]) => Sighting[] }> {
  const { argv, others, layout, problems, values } = run;
  const journal = (await run.link.exec(['journalctl', `--namespace=+${GATEWAY_LOG_NAMESPACE}`, '--no-pager', '-o', 'cat', '-u', layout.unitName, '-u', run.wsLayout.unitName])).stdout;
  const secrets: Secret[] = [
    { name: 'document sentinel', value: values.docSentinel },
    { name: 'launch placeholder', value: values.placeholder },
    { name: 'launch placeholder of a failed activation', value: values.failingPlaceholder },
    { name: 'text a failing hook threw', value: values.hookSecret },
    { name: 'workspace document sentinel', value: values.workspaceSentinel },
  ];
  if (run.password) secrets.push({ name: 'managed gateway password', value: run.password });
  const corpora: Corpus[] = [
    { name: 'controller logs', text: run.log.text() },
    { name: 'error messages', text: run.errors.join('\n') },
    { name: 'CLI output', text: run.cliOutput.join('\n') },
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
  if (!run.delivered) problems.push('the document sentinel never reached the host');
  if (!run.wsDelivered) problems.push("the workspace document sentinel never reached the Agent's workspace");
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
