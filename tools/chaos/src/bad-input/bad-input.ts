// The bad-input section: malformed input. Installation documents (pure), revisions and hook placeholders
// through a real SshComputeDriver pointed at the host, and corrupted base64 arguments sent raw to
// the helper. Each must be refused with a permanent, classified error and leave the host exactly
// as it was (tree and passwd hashes compared before and after each batch of cases).
import { canonicalHash, sha256Hex } from '@occ-ssh/markers';
import { ComputeError, loadInstallationConfiguration, type ComputeAgentBinding, type AgentRevision, type LifecycleDriver, type SshComputeDriver } from '@occ-ssh/controller';
import { occRevision } from '@occ-ssh/occ-fixtures';
import { sealOperation, sealRaw, type SealedOperation } from '@occ-ssh/helper-call';
import { decodeArgument, encodeArgument, MAX_ARGUMENT_BYTES, PROTOCOL_VERSION, type Envelope } from '@occ-ssh/protocol';
import { fixedConfigCases, randomConfigCases } from './bad-configs.js';
import { helperOf, runSteps, shOf, TREE_HASH, treeHash } from '../host/collector.js';
import { controller } from '../host/controllers.js';
import { envelopeFor } from '@occ-ssh/test-support';
import { ownerOf, prepareArgs } from '../host/fixture-args.js';
import type { Rng } from '../campaign/rng.js';
import type { HostLink } from '../host/ssh.js';

type BadGroup = 'installation' | 'driver' | 'helper-argument';

export interface BadCaseResult {
  group: BadGroup;
  name: string;
  /** An error came back (nothing was accepted). */
  refused: boolean;
  /** It was a ComputeError with failure `permanent` (and, for documents, it named the key path). */
  classified: boolean;
  unchanged: boolean;
  batch: number;
  code?: string;
  message?: string;
}

export interface BadInputPlan {
  randomConfigs: number;
  randomArguments: number;
  /** Cases per tree comparison on the host (1 = every case compared on its own). */
  batchSize: number;
}

const NAMESPACE = 'badin';

function first(message: string): string {
  return message.split('\n')[0]!.slice(0, 240);
}

/** Runs `attempt`, which must throw (or report) a permanent ComputeError. */
async function refusal(attempt: () => Promise<unknown>): Promise<Pick<BadCaseResult, 'refused' | 'classified' | 'code' | 'message'>> {
  try {
    const value = await attempt();
    const failure = (value as { failure?: string } | undefined)?.failure;
    if (failure) return { refused: true, classified: failure === 'permanent', code: `result failure ${failure}` };
    return { refused: false, classified: false, message: 'accepted' };
  } catch (error) {
    if (!(error instanceof ComputeError)) return { refused: true, classified: false, message: `not a ComputeError: ${String(error).slice(0, 200)}` };
    return { refused: true, classified: error.failure === 'permanent', code: error.code, message: first(error.message) };
  }
}

interface DriverCase {
  name: string;
  run: (env: DriverEnv) => Promise<unknown>;
}

interface DriverEnv {
  driver: SshComputeDriver;
  binding: ComputeAgentBinding;
  good: AgentRevision;
  withHooks: (hooks: LifecycleDriver[]) => SshComputeDriver;
}

function revisionWith(env: DriverEnv, change: Partial<AgentRevision>): AgentRevision {
  return { ...env.good, ...change };
}

/** A beforeWorkloadStart hook that returns exactly `environment`. */
function placing(environment: Record<string, unknown>, id = 'iam-chaos'): LifecycleDriver {
  return {
    id,
    capability: 'iam',
    implementation: 'chaos/iam',
    computeLifecycleHooks: {
      async beforeWorkloadStart(_revision, launch) {
        Object.assign(launch.environment, environment);
      },
    },
  };
}

function driverCases(): DriverCase[] {
  const cases: DriverCase[] = [];
  const prepare = (name: string, change: (env: DriverEnv) => Partial<AgentRevision>) => cases.push({ name, run: (env) => env.driver.prepareRevision(revisionWith(env, change(env))) });
  for (const [what, id] of [
    ['slash', 'rev/1'],
    ['newline', 'rev\n1'],
    ['NUL', 'rev\u00001'],
    ['non-ASCII', 'rév-1'],
    ['129 characters', 'r'.repeat(129)],
    ['empty', ''],
    ['leading dash', '-rev'],
    ['path traversal', '../../etc/passwd'],
    ['header injection', 'rev-1\nX-OCC-Agent-Id=other'],
    ['emoji', 'rev-\u{1F600}'],
  ] as const) {
    prepare(`revision id with ${what}`, () => ({ id }));
  }
  for (const number of [0, -1, 1.5, 2 ** 53, Number.NaN]) prepare(`revision number ${number}`, () => ({ revision: number }));
  const harnesses = [
    ['dedicated Codex', { id: 'codex', version: '1.0.0', mode: 'dedicated' }],
    ['empty', ''],
    ['near miss', { id: 'OpenClaw', version: '1.0.0', mode: 'embedded' }],
    ['dedicated OpenClaw', { id: 'openclaw', version: '1.0.0', mode: 'dedicated' }],
  ] as const;
  for (const [what, harness] of harnesses) prepare(`harness ${what}`, () => ({ harness: harness as unknown as AgentRevision['harness'] }));
  for (const [what, auth] of [
    ['managed', { method: 'managed' }],
    ['runtime with a key', { method: 'runtime', apiKey: 'sk-not-a-real-key' }],
    ['OCC Secret', { method: 'secret', secretRef: 'model-key' }],
    ['ChatGPT account', { method: 'chatgpt' }],
  ] as const) {
    prepare(`harnessAuth ${what}`, () => ({ harnessAuth: auth as AgentRevision['harnessAuth'] }));
  }
  prepare('OCC Secret bindings', () => ({ secretBindings: { MODEL_KEY: { source: { kind: 'secret', id: 'sec-1', namespaceId: 'ns-badin' } } } }));
  prepare('nonempty plugin map', () => ({ plugins: { driver: { id: 'plugin-any', implementation: 'occ/any' }, plugins: { search: {} } } }));
  prepare('Sandbox composition', () => ({ sandboxDriverId: 'sandbox-any' }));
  prepare('another Compute driver', () => ({ compute: { id: 'compute-k8s', implementation: 'occ/kubernetes' } }));
  prepare('another ServicePrincipal', () => ({ servicePrincipalId: 'sp-other' }));
  const configuration = (name: string, value: unknown) => prepare(`configuration ${name}`, () => ({ configuration: value as Record<string, unknown> }));
  configuration('that is a list', []);
  configuration('that is null', null);
  configuration('with a string gateway', { gateway: 'local' });
  configuration('with gateway.port', { gateway: { port: 18800 } });
  configuration('with auth mode token', { gateway: { auth: { mode: 'token', token: 'abc' } } });
  configuration('with auth mode none', { gateway: { auth: { mode: 'none' } } });
  configuration('with a plaintext password', { gateway: { auth: { mode: 'password', password: 'hunter2-plaintext' } } });
  configuration('with a file SecretRef password', { gateway: { auth: { password: { source: 'file', provider: 'default', id: '/etc/shadow' } } } });
  configuration('with an unknown auth field', { gateway: { auth: { token: 'abc' } } });
  configuration('trusted proxy without userHeader', { gateway: { auth: { mode: 'trusted-proxy', trustedProxy: {} } } });
  configuration('trusted proxy with a plaintext password', { gateway: { auth: { mode: 'trusted-proxy', trustedProxy: { userHeader: 'x-user' }, password: 'hunter2' } } });
  configuration('password mode with trustedProxy', { gateway: { auth: { mode: 'password', trustedProxy: { userHeader: 'x-user' } } } });
  configuration('too large (60 KiB)', { gateway: {}, notes: 'x'.repeat(60 * 1024) });
  configuration('too large when rendered (many short strings)', { gateway: {}, tokens: Array.from({ length: 12_000 }, () => '""') });
  // Bindings and Namespaces.
  cases.push({ name: 'bindAgent with a slash in the Agent ID', run: async (env) => env.driver.bindAgent({ ...env.binding, agent: { ...env.binding.agent, id: 'agent/1' } }) });
  cases.push({
    name: 'bindAgent with a newline in the Namespace ID',
    run: async (env) => env.driver.bindAgent({ namespace: { id: 'ns\nx', name: NAMESPACE }, agent: { ...env.binding.agent, namespaceId: 'ns\nx' } }),
  });
  cases.push({ name: 'bindAgent with NUL in the ServicePrincipal ID', run: async (env) => env.driver.bindAgent({ ...env.binding, agent: { ...env.binding.agent, servicePrincipalId: 'sp\u0000' } }) });
  cases.push({
    name: 'bindAgent with an invalid Namespace name',
    run: async (env) => env.driver.bindAgent({ namespace: { id: env.binding.namespace.id, name: 'Bad_Name' }, agent: env.binding.agent }),
  });
  cases.push({ name: 'bindAgent with an Agent of another Namespace', run: async (env) => env.driver.bindAgent({ ...env.binding, agent: { ...env.binding.agent, namespaceId: 'ns-other' } }) });
  cases.push({ name: 'an unbound revision', run: (env) => env.driver.prepareRevision(revisionWith(env, { agentId: 'agent-never-bound' })) });
  cases.push({ name: 'an unmapped Namespace name', run: (env) => env.driver.ensureNamespace({ id: 'ns-unmapped', name: 'nowhere' }) });
  cases.push({ name: 'ensureNamespace with a slash in the ID', run: (env) => env.driver.ensureNamespace({ id: 'ns/../../etc', name: NAMESPACE }) });
  cases.push({ name: 'deleteNamespace with a non-ASCII ID', run: (env) => env.driver.deleteNamespace({ id: 'ns-ü', name: NAMESPACE }) });
  cases.push({
    name: 'Agent default plugin approver policy (empty list)',
    run: async (env) => {
      const driver = env.withHooks([]);
      driver.bindAgent({ ...env.binding, agent: { ...env.binding.agent, pluginApprovers: [] } });
      return driver.prepareRevision(env.good);
    },
  });
  // Launch environments returned by a beforeWorkloadStart hook.
  const launch = (name: string, environment: Record<string, unknown>, hooks?: LifecycleDriver[]) =>
    cases.push({
      name: `launch environment ${name}`,
      run: async (env) => {
        const driver = env.withHooks(hooks ?? [placing(environment)]);
        driver.bindAgent(env.binding);
        return driver.activateRevision(env.good);
      },
    });
  for (const bad of [
    'lower_case',
    '1ABC',
    'A-B',
    'A B',
    '',
    'A'.repeat(129),
    'PATH',
    'LD_PRELOAD',
    'NODE_OPTIONS',
    'SYSTEMD_EXEC_PID',
    'HOME',
    'OPENCLAW_GATEWAY_PASSWORD',
    'OPENCLAW_STATE_DIR',
    'NOTIFY_SOCKET',
  ]) {
    launch(`name ${JSON.stringify(bad.slice(0, 20))}`, { [bad]: 'opaque-value-1' });
  }
  for (const bad of [
    'sk-live-plaintext-secret',
    'opaque-',
    'opaque-with space',
    'opaque-$(id)',
    'opaque-a\nb',
    'opaque-%n',
    `opaque-${'a'.repeat(501)}`,
    'Opaque-x',
    42,
    null,
    { nested: 'opaque-x' },
  ]) {
    launch(`value ${JSON.stringify(bad)?.slice(0, 24) ?? 'undefined'}`, { OCC_PLACEHOLDER: bad });
  }
  launch('with 65 variables (OCC allows 64)', Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`OCC_VAR_${i}`, `opaque-${i}`])));
  launch('over 8 KiB', Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`OCC_BIG_${i}`, `opaque-${'b'.repeat(450)}`])));
  launch('set by two lifecycle drivers', {}, [placing({ OCC_SAME: 'opaque-a' }, 'iam-chaos'), { ...placing({ OCC_SAME: 'opaque-b' }, 'configuration-chaos'), capability: 'configuration' }]);
  return cases;
}

interface ArgumentCase {
  name: string;
  /** An encoded operation to seal, or an exact wire form (header argument and stdin prelude). */
  argument: string | SealedOperation;
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64');

function argumentCases(link: HostLink, rng: Rng, randomCount: number): ArgumentCase[] {
  const owner = ownerOf('badarg', 'badarg', NAMESPACE);
  const good = envelopeFor(link, 'ensure-namespace', { namespace: owner.namespace });
  const prepared = envelopeFor(link, 'prepare-revision', prepareArgs(owner, 1)) as Extract<Envelope, { operation: 'prepare-revision' }>;
  const encoded = encodeArgument(good);
  const cases: ArgumentCase[] = [];
  const add = (name: string, argument: string | SealedOperation) => cases.push({ name, argument });
  const raw = (name: string, value: unknown) => add(name, b64(value));
  // The wire itself: the argv header and the stdin prelude that must agree with it.
  const sealed = sealOperation(encoded);
  const header = JSON.parse(Buffer.from(sealed.argument, 'base64').toString('utf8')) as { sealed: { sha256: string; bytes: number } };
  const headerOf = (value: unknown) => b64(value);
  add('header argument missing', { argument: '', prelude: sealed.prelude });
  add('header argument not base64', { argument: 'not-base64!', prelude: sealed.prelude });
  add('header argument of another protocol version', { argument: headerOf({ ...header, protocolVersion: 1 }), prelude: sealed.prelude });
  add('header argument with an extra key', { argument: headerOf({ ...header, operation: 'probe' }), prelude: sealed.prelude });
  add('header digest of another operation', { argument: sealOperation(b64({ ...good, requestId: 'other' })).argument, prelude: sealed.prelude });
  add('header length off by one', { argument: headerOf({ ...header, sealed: { ...header.sealed, bytes: header.sealed.bytes + 1 } }), prelude: sealed.prelude });
  add('header argument above its bound', { argument: 'A'.repeat(1024), prelude: sealed.prelude });
  add('sealed operation missing from stdin', { argument: sealed.argument, prelude: '' });
  add('sealed operation not a string', sealRaw({ text: encoded }, encoded));
  add('no argument at all', '');
  add('not base64', 'not base64!');
  add('only symbols', '@@@@');
  add('base64url alphabet', encoded.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') + '-_');
  add('padding removed', encoded.replace(/=+$/, '').slice(0, -1));
  add('last character removed', encoded.slice(0, -1));
  add('truncated to half', encoded.slice(0, Math.floor(encoded.length / 8) * 4 - 3));
  add('a trailing invalid character', `${encoded}!`);
  add('oversized (above the argument limit)', 'A'.repeat(MAX_ARGUMENT_BYTES + 4));
  raw('base64 of text', 'not json at all');
  raw('base64 of broken JSON', '{"operation":');
  raw('base64 of NUL', '\u0000');
  for (const value of [null, [], 1, 'probe', {}]) raw(`JSON ${JSON.stringify(value)}`, value);
  for (const protocolVersion of [0, PROTOCOL_VERSION - 1, PROTOCOL_VERSION + 1, String(PROTOCOL_VERSION), null])
    raw(`protocol version ${JSON.stringify(protocolVersion)}`, { ...good, protocolVersion });
  raw('unknown operation exec', { ...good, operation: 'exec' });
  raw('unknown operation format-disk', { ...good, operation: 'format-disk' });
  raw('an extra top-level key', { ...good, shell: 'id' });
  raw('an extra argument key', { ...good, args: { ...good.args, force: true } });
  for (const [what, id] of [
    ['slash', 'ns/../../etc'],
    ['newline', 'ns\nX-OCC'],
    ['NUL', 'ns\u0000x'],
    ['non-ASCII', 'ns-ü'],
    ['129 characters', 'n'.repeat(129)],
  ] as const) {
    raw(`Namespace ID with ${what}`, { ...good, args: { namespace: { id, name: NAMESPACE } } });
  }
  raw('Namespace name upper-case', { ...good, args: { namespace: { id: 'ns-x', name: 'BadIn' } } });
  raw('requestId with a space', { ...good, requestId: 'a b' });
  for (const [what, root] of [
    ['space', '/var/lib/x y'],
    ['dot-dot', '/var/lib/../etc'],
    ['relative', 'var/lib/x'],
    ['dollar', '/var/lib/$x'],
  ] as const) {
    const runtime = { ...good.runtime, root };
    raw(`runtime root with ${what}`, { ...good, runtime, configurationHash: sha256Hex(JSON.stringify(runtime)) });
  }
  raw('runtime root inside the unit directory', { ...good, runtime: { ...good.runtime, root: '/etc/systemd/system/x' } });
  raw('runtime user root', { ...good, runtime: { ...good.runtime, user: 'root' } });
  raw('configuration hash of other settings', { ...good, configurationHash: '0'.repeat(64) });
  raw('configuration hash matching other settings', { ...good, configurationHash: canonicalHash({ ...good.runtime, user: 'other' }) });
  raw('prepare whose document does not match its hash', {
    ...prepared,
    args: { ...prepared.args, configuration: { ...prepared.args.configuration, document: `${prepared.args.configuration.document} ` } },
  });
  raw('prepare with another harness', { ...prepared, args: { ...prepared.args, harness: 'codex/dedicated' } });
  raw('prepare with revision number 0', { ...prepared, args: { ...prepared.args, revision: { ...prepared.args.revision, number: 0 } } });
  const activate = envelopeFor(link, 'activate-revision', {
    owner,
    revision: prepared.args.revision,
    configurationHash: prepared.args.configuration.hash,
    launchEnvironment: {},
    readinessTimeoutMs: 5000,
  }) as Extract<Envelope, { operation: 'activate-revision' }>;
  for (const [what, launchEnvironment] of [
    ['LD_PRELOAD', { LD_PRELOAD: 'opaque-x' }],
    ['a plaintext value', { OCC_X: 'plaintext' }],
    ['a newline value', { OCC_X: 'opaque-a\nb' }],
    ['the password variable', { OPENCLAW_GATEWAY_PASSWORD: 'opaque-x' }],
  ] as const) {
    raw(`activate with launch environment ${what}`, { ...activate, args: { ...activate.args, launchEnvironment } });
  }
  for (const readinessTimeoutMs of [0, 999, 120_001]) raw(`activate with readiness timeout ${readinessTimeoutMs}`, { ...activate, args: { ...activate.args, readinessTimeoutMs } });

  // Seeded random corruptions of a valid prepare argument, kept only if the helper must refuse them.
  const valid = encodeArgument(prepared);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_!';
  for (let made = 0, tries = 0; made < randomCount && tries < randomCount * 50; tries += 1) {
    let corrupted: string;
    let how: string;
    if (rng.chance(0.5)) {
      const at = rng.int(0, valid.length - 1);
      corrupted = `${valid.slice(0, at)}${rng.pick([...alphabet])}${valid.slice(at + 1)}`;
      how = `character ${at} replaced`;
    } else {
      const bytes = Buffer.from(valid, 'base64');
      const at = rng.int(0, bytes.length - 1);
      const bit = rng.int(0, 7);
      bytes[at] = bytes[at]! ^ (1 << bit);
      corrupted = bytes.toString('base64');
      how = `bit ${bit} of byte ${at} flipped`;
    }
    if (corrupted === valid || mustAccept(corrupted)) continue;
    add(`random: ${how}`, corrupted);
    made += 1;
  }
  return cases;
}

/** True when the helper would accept `argument` (decodes, settings hash and document hash match). */
function mustAccept(argument: string): boolean {
  try {
    const op = decodeArgument(argument);
    if (canonicalHash(op.runtime) !== op.configurationHash) return false;
    if (op.operation === 'prepare-revision' && sha256Hex(op.args.configuration.document) !== op.args.configuration.hash) return false;
    return true;
  } catch {
    return false;
  }
}

export async function runBadInput(link: HostLink, rng: Rng, plan: BadInputPlan, progress: (line: string) => void): Promise<BadCaseResult[]> {
  const results: BadCaseResult[] = [];
  let batch = 0;

  // 1. Installation documents: pure, so the host cannot change; one comparison brackets them all.
  const hostBefore = await treeHash(link);
  for (const item of [...fixedConfigCases(), ...randomConfigCases(rng.fork('configs'), plan.randomConfigs)]) {
    const outcome = await refusal(async () => loadInstallationConfiguration({ text: item.text }));
    const named = outcome.message?.startsWith(item.key) === true;
    results.push({ group: 'installation', name: item.name, ...outcome, classified: outcome.classified && outcome.code === 'configuration' && named, unchanged: true, batch });
  }
  const configsUnchanged = (await treeHash(link)) === hostBefore;
  for (const result of results) result.unchanged = configsUnchanged;
  progress(`bad input: ${results.length} Installation documents`);

  // 2. Revisions and placeholders through a real driver, with the Agent's revision staged on the host.
  const binding: ComputeAgentBinding = { namespace: { id: 'ns-badin', name: NAMESPACE }, agent: { id: 'agent-badin', namespaceId: 'ns-badin', servicePrincipalId: 'sp-badin' } };
  const good: AgentRevision = { ...occRevision(binding, 1, { gateway: { mode: 'local', bind: 'loopback' } }), id: 'rev-badin-1' };

  const drivers: SshComputeDriver[] = [];
  const make = (hooks: LifecycleDriver[]) => {
    const driver = controller(link.host, [NAMESPACE], { hooks, readinessTimeoutMs: 20_000 });
    drivers.push(driver);
    return driver;
  };
  const driver = make([]);
  try {
    if (!(await driver.ensureNamespace(binding.namespace)).namespaceReady) throw new Error('bad input: setup ensureNamespace failed');
    driver.bindAgent(binding);
    await driver.prepareRevision(good);
    const env: DriverEnv = { driver, binding, good, withHooks: make };
    await inBatches(
      link,
      plan.batchSize,
      driverCases(),
      async (item) => ({ group: 'driver', name: item.name, ...(await refusal(() => item.run(env))) }),
      results,
      () => (batch += 1),
    );
    progress(`bad input: ${results.filter((r) => r.group === 'driver').length} driver cases`);

    // 3. Corrupted arguments straight to the helper, one batch per round trip.
    const argumentList = argumentCases(link, rng.fork('arguments'), plan.randomArguments);
    const batchSize = Math.max(plan.batchSize, 1);
    for (let start = 0; start < argumentList.length; start += batchSize) {
      const items = argumentList.slice(start, start + batchSize);
      batch += 1;
      // One round trip: tree hash, every helper of the batch, tree hash.
      const steps = await runSteps(link, [{ sh: TREE_HASH }, ...items.map((item) => ({ helper: item.argument })), { sh: TREE_HASH }]);
      const unchanged = shOf(steps[0]) === shOf(steps[steps.length - 1]);
      for (const [index, item] of items.entries()) {
        const outcome = helperOf(steps[index + 1]);
        const line = outcome.line;
        const base = { group: 'helper-argument' as const, name: item.name, unchanged, batch };
        if (!line) results.push({ ...base, refused: false, classified: false, message: `no result line (exit ${String(outcome.code)})` });
        else if (line.ok) results.push({ ...base, refused: false, classified: false, message: 'accepted' });
        else results.push({ ...base, refused: true, classified: line.error.code === 'configuration', code: line.error.code, message: first(line.error.message) });
      }
    }
    progress(`bad input: ${results.filter((r) => r.group === 'helper-argument').length} helper arguments`);
    await driver.deleteNamespace(binding.namespace);
  } finally {
    await Promise.all(drivers.map((d) => d.close()));
  }
  return results;
}

/** Runs cases in batches of `size`, comparing the host tree hash before and after each batch. */
async function inBatches<T>(
  link: HostLink,
  size: number,
  items: readonly T[],
  run: (item: T) => Promise<Omit<BadCaseResult, 'unchanged' | 'batch'>>,
  results: BadCaseResult[],
  nextBatch: () => number,
): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    const batch = nextBatch();
    const before = await treeHash(link);
    const done: Omit<BadCaseResult, 'unchanged' | 'batch'>[] = [];
    for (const item of items.slice(start, start + size)) done.push(await run(item));
    const unchanged = (await treeHash(link)) === before;
    for (const result of done) results.push({ ...result, unchanged, batch });
  }
}
