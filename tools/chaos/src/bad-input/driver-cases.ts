// The bad-input section's driver cases: revisions, bindings, Namespaces and hook launch environments
// that a real SshComputeDriver must refuse with a permanent, classified error before any effect.
import type { AgentRevision, ComputeAgentBinding, LifecycleDriver, SshComputeDriver } from '@occ-ssh/controller';

/** The Namespace every bad-input case names. */
export const NAMESPACE = 'badin';

export interface DriverCase {
  name: string;
  run: (env: DriverEnv) => Promise<unknown>;
}

export interface DriverEnv {
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

/** Revisions that differ from a good one in one field: IDs, numbers, harness, auth, composition, configuration. */
function revisionCases(): DriverCase[] {
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
  return cases;
}

/** Bindings and Namespaces. */
function bindingCases(): DriverCase[] {
  const cases: DriverCase[] = [];
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
  return cases;
}

/** Launch environments returned by a beforeWorkloadStart hook. */
function launchCases(): DriverCase[] {
  const cases: DriverCase[] = [];
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

export function driverCases(): DriverCase[] {
  return [...revisionCases(), ...bindingCases(), ...launchCases()];
}
