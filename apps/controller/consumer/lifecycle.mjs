// Runs in the consumer project with the Node under test: OCC's loader rules against the installed
// package, then one Agent's lifecycle on a real test host through it. Each checkpoint prints one JSON
// line and waits for a line on stdin, so the test can inspect the host in between.
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const IMPORT_CONDITIONS = new Set(['node', 'import', 'module-sync', 'node-addons', 'default']);
const input = JSON.parse(await readFile(process.argv[2], 'utf8'));
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function emit(step, fields = {}) {
  process.stdout.write(`${JSON.stringify({ step, ...fields })}\n`);
}

async function checkpoint(step, fields) {
  emit(step, fields);
  await lines.next();
}

function fail(reason) {
  throw new Error(`loader rule: ${reason}`);
}

/** The "." export under Node's import conditions: a string target, or the first matching condition. */
function rootTarget(exports) {
  let target = exports;
  if (target && typeof target === 'object' && !Array.isArray(target) && Object.keys(target).some((key) => key.startsWith('.'))) target = target['.'];
  while (target && typeof target === 'object' && !Array.isArray(target)) {
    const key = Object.keys(target).find((name) => IMPORT_CONDITIONS.has(name));
    if (key === undefined) return undefined;
    target = target[key];
  }
  return typeof target === 'string' ? target : undefined;
}

/** OCC's rules for an external driver package, applied to what npm installed. */
async function loadLikeOcc(root, name) {
  const owner = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
  const wanted = owner.dependencies?.[name];
  if (typeof wanted !== 'string') fail('not a direct production dependency');
  const manifestPath = await realpath(path.join(root, 'node_modules', name, 'package.json'));
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  if (manifest.name !== name) fail('installed name differs');
  if (wanted !== manifest.version) fail(`dependency ${wanted} is not pinned to the installed ${manifest.version}`);
  const target = rootTarget(manifest.exports);
  if (!target || !target.startsWith('./')) fail('no exported entry under the import conditions');
  const entry = await realpath(path.resolve(path.dirname(manifestPath), target));
  if (!(await stat(entry)).isFile()) fail('entry is not a file');
  const extension = path.extname(entry);
  if (!(extension === '.mjs' || (extension === '.js' && manifest.type === 'module'))) fail('entry is not precompiled ESM');
  const contained = path.relative(path.dirname(manifestPath), entry);
  if (contained === '' || contained.startsWith('..') || path.isAbsolute(contained)) fail('entry escapes the package');
  const module = await import(pathToFileURL(entry).href);
  if (typeof module.validateConfiguration !== 'function' || typeof module.createDriver !== 'function') fail('no validator or factory');
  if (!module.configurationSchema || typeof module.configurationSchema !== 'object' || Array.isArray(module.configurationSchema)) fail('configurationSchema is not an object');
  return { module, implementation: `${name}@${manifest.version}`, entry: contained };
}

const { module, implementation, entry } = await loadLikeOcc(input.root, input.packageName);
module.validateConfiguration(input.configuration);
let operationSignal;
const driver = module.createDriver({ id: input.driverId, implementation, configuration: input.configuration, getOperationAbortSignal: () => operationSignal });
const required = ['ensureNamespace', 'deleteNamespace', 'prepareRevision', 'stopRevision', 'retireRevision'];
if (driver.capability !== 'compute' || driver.id !== input.driverId || driver.implementation !== implementation) fail('factory returned another identity');
if (required.some((method) => typeof driver[method] !== 'function') || typeof driver.setLifecycleDrivers !== 'function') fail('factory returned an invalid contract');
emit('loaded', {
  node: process.version,
  entry,
  implementation,
  getGatewayEndpoint: typeof driver.getGatewayEndpoint,
  runtimeView: { describeAgentRuntime: typeof driver.describeAgentRuntime, readAgentRuntimeLogs: typeof driver.readAgentRuntimeLogs, runtimeLogging: driver.runtimeLogging },
});

const hookCalls = [];
driver.setLifecycleDrivers([
  {
    id: 'iam-consumer',
    capability: 'iam',
    implementation: 'consumer/iam',
    computeLifecycleHooks: {
      async beforeWorkloadStart(revision, launch) {
        hookCalls.push(`start:${revision.revision}`);
        launch.environment.OCC_CONSUMER_PLACEHOLDER = 'opaque-consumer-placeholder';
      },
      async beforeWorkloadStop(revision) {
        hookCalls.push(`stop:${revision.revision}`);
      },
    },
  },
]);

const { namespace, agent } = input;
const revision = {
  id: `rev-${agent.id}-1`,
  namespaceId: namespace.id,
  agentId: agent.id,
  servicePrincipalId: agent.servicePrincipalId,
  createdAt: '2026-01-01T00:00:00.000Z',
  revision: 1,
  backendId: null,
  configurationId: agent.configurationId,
  configurationKind: 'agent',
  configurationGeneration: 1,
  configuration: { gateway: { mode: 'local', bind: 'loopback' } },
  harness: { id: 'openclaw', version: '2026.1.0', mode: 'embedded' },
  compute: { id: input.driverId, implementation },
  harnessAuth: { method: 'runtime' },
};
const context = { harnessAuth: { method: 'runtime' }, secretEnvironment: [] };

try {
  operationSignal = new AbortController().signal;
  await driver.preflight();
  const ensured = await driver.ensureNamespace(namespace);
  await driver.bindAgent({ namespace, agent });
  driver.validateHarnessAuth(revision.harness, revision.harnessAuth, revision.configuration, revision.secretBindings);
  const refused = await driver
    .prepareRevision({ ...revision, secretBindings: { MODEL_API_KEY: { source: { kind: 'secret', id: 'sec-1', namespaceId: namespace.id }, delivery: { type: 'env' } } } }, context)
    .then(
      () => 'accepted',
      (error) => `${error.constructor.name}:${error.code}:${error.failure}`,
    );
  const prepared = await driver.prepareRevision(revision, context);
  await driver.activateRevision(revision, context);
  // OCC's API process calls the diagnostics with the binding alone; OCC checks the shape it gets back.
  const diagnosis = await driver.diagnoseAgentDeployment({ namespace, agent, revision });
  const diagnosed = {
    revisionId: diagnosis.revisionId,
    checks: diagnosis.checks.length,
    notSucceeded: diagnosis.checks.filter((check) => check.state !== 'succeeded').map((check) => `${check.component} ${check.check}`),
  };
  // What OCC's runtime routes ask, with a fresh signal each, as OCC's API process would.
  const binding = { namespace, agent, revision };
  const served = await driver.describeAgentRuntime(binding, AbortSignal.timeout(60_000));
  const pod = served.sources[0].pods[0];
  const page = await driver.readAgentRuntimeLogs(binding, {
    source: 'gateway',
    pod: pod.name,
    podUid: pod.uid,
    container: pod.container,
    previous: false,
    tailLines: 20,
    limitBytes: 4096,
    signal: AbortSignal.timeout(60_000),
  });
  const runtime = {
    phase: served.pods[0].phase,
    ready: served.pods[0].ready,
    available: served.sources[0].available,
    lines: page.lines.length,
    bytes: page.lines.reduce((sum, line) => sum + Buffer.byteLength(line.raw), 0),
  };
  await checkpoint('activated', { ensured, refused, prepared, hookCalls: hookCalls.splice(0), diagnosed, runtime });
  await driver.stopRevision(revision);
  const stopped = await driver.describeAgentRuntime(binding, AbortSignal.timeout(60_000));
  await checkpoint('stopped', { hookCalls: hookCalls.splice(0), runtime: { pods: stopped.pods.length, unavailableCode: stopped.sources[0].unavailableCode } });
  await driver.retireRevision(revision);
  await checkpoint('retired', { hookCalls: hookCalls.splice(0) });
  const deleted = await driver.deleteNamespace(namespace);
  emit('deleted', { deleted });
} finally {
  await driver.close();
  lines.return?.();
  process.stdin.destroy();
}
