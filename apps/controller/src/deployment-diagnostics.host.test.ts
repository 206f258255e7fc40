// diagnoseAgentDeployment on a real host: a served gateway, a crashed, frozen and stopped one, a tampered
// snapshot, an edited unit, a squatter on the port, the operator env file, an unreachable host. Every
// answer is typed as OCC's contract and checked by OCC's rules for it.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { agentLayout, revisionLayout } from '@occ-ssh/markers';
import { closedLoopbackPort } from '@occ-ssh/test-support';
import { squatterArgv, startTestHost, type TestHost } from '@occ-ssh/testhost';
import type { AgentDeploymentDiagnostics, ComputeAgentRevisionBinding, ComputeDriver } from '../consumer/occ-contract.js';
import { rejection } from '../test/fakes.js';
import { DRIVER_ID, DRIVER_IMPLEMENTATION } from '@occ-ssh/protocol';
import { cliRunner } from '../test/cli-runner.js';
import { configFor, hostInfo, installationYaml, memoryLogger } from '../test/hosts.js';
import { EXIT } from './cli/main.js';
import { SshComputeDriver } from './driver.js';

const ROOT = '/var/lib/openclaw-enterprise';
const UNITS = '/etc/systemd/system';
const TIMESTAMP = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$/;
const IDENTIFIER = /^[A-Za-z0-9._~:@-]{1,64}$/;

/** OCC's rules for the answer: the exact revision, valid timestamps, at most 32 checks, known states, safe identifiers. */
function assertOccShape(diagnosis: AgentDeploymentDiagnostics, revisionId: string): void {
  assert.equal(diagnosis.revisionId, revisionId);
  assert.match(diagnosis.observedAt, TIMESTAMP);
  assert.ok(diagnosis.checks.length <= 32);
  for (const check of diagnosis.checks) {
    assert.deepEqual(
      Object.keys(check).filter((key) => !['component', 'check', 'state', 'checkedAt', 'code'].includes(key)),
      [],
    );
    assert.match(check.component, /^[a-z]+(-[a-z]+)*$/);
    assert.match(check.check, /^[a-z]+(-[a-z]+)*$/);
    assert.ok(['succeeded', 'failed', 'unknown'].includes(check.state));
    if (check.checkedAt !== null) {
      assert.match(check.checkedAt, TIMESTAMP);
      assert.ok(check.checkedAt <= diagnosis.observedAt, 'no check is later than the observation');
    }
    if (check.code !== undefined) assert.match(check.code, IDENTIFIER);
    if (check.code !== undefined) assert.match(check.code, /^[A-Z][A-Z0-9_]{0,63}$/);
    if (check.state === 'failed') assert.ok(check.code, `${check.component} ${check.check} failed with a code`);
  }
}

/** `component check` to `state` or `state:CODE`, for exact comparisons. */
function states(diagnosis: AgentDeploymentDiagnostics): Record<string, string> {
  return Object.fromEntries(diagnosis.checks.map((check) => [`${check.component} ${check.check}`, check.code ? `${check.state}:${check.code}` : check.state]));
}

const ALL_SUCCEEDED = {
  'host reachable': 'succeeded',
  'namespace marker': 'succeeded',
  'agent marker': 'succeeded',
  'account exists': 'succeeded',
  'account marker': 'succeeded',
  'snapshot marker': 'succeeded',
  'snapshot hash': 'succeeded',
  'unit file': 'succeeded',
  'unit loaded': 'succeeded',
  'unit active': 'succeeded',
  'unit enabled': 'succeeded',
  'revision current': 'succeeded',
  'revision served': 'succeeded',
  'listener owner': 'succeeded',
  'gateway ready': 'succeeded',
  'env-file owner': 'succeeded:ENV_FILE_ABSENT',
  'env-file mode': 'succeeded:ENV_FILE_ABSENT',
  'disk space': 'succeeded',
  'disk inodes': 'succeeded',
};

/** The binding OCC's API process passes, every resource in OCC's own shape. */
function occBinding(tag: string, namespaceName: string, number: number): ComputeAgentRevisionBinding {
  const [namespaceId, agentId, servicePrincipalId] = [`ns-${tag}`, `agent-${tag}`, `sp-${tag}`];
  const common = { namespaceId, backendId: null, configurationId: 'cfg-1', servicePrincipalId, createdAt: '2026-01-01T00:00:00.000Z' };
  return {
    namespace: { id: namespaceId, name: namespaceName, status: 'ready', createdAt: common.createdAt },
    agent: { ...common, id: agentId, name: tag, desiredRuntimeState: 'running', status: 'active', harnessAuth: { method: 'runtime' }, executionMode: 'embedded' },
    revision: {
      ...common,
      id: `rev-${agentId}-${number}`,
      agentId,
      revision: number,
      configurationKind: 'agent',
      configurationGeneration: number,
      configuration: { gateway: { mode: 'local', bind: 'loopback' } },
      harness: { id: 'openclaw', version: '2026.1.0', mode: 'embedded' },
      compute: { id: DRIVER_ID, implementation: DRIVER_IMPLEMENTATION },
      harnessAuth: { method: 'runtime' },
    },
  };
}

describe('diagnoseAgentDeployment on a real host', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  let refusedPort: number;
  const bound = occBinding('diag', 'stable', 1);
  const { revision: rev1, ...binding } = bound;
  const layout = agentLayout(ROOT, UNITS, binding.namespace.id, binding.agent.id);
  const snapshot = revisionLayout(layout.dir, rev1.id).config;
  const context = { harnessAuth: { method: 'runtime' as const }, secretEnvironment: [] };
  /** OCC's view of the driver: the optional member must be there. */
  let occ: Required<Pick<ComputeDriver, 'diagnoseAgentDeployment'>>;
  const diagnose = async (label: string, which: ComputeAgentRevisionBinding = bound) => {
    const started = Date.now();
    const diagnosis = await occ.diagnoseAgentDeployment(which);
    const ms = Date.now() - started;
    assertOccShape(diagnosis, which.revision.id);
    process.stderr.write(`# ${label} (${ms} ms):\n# ${JSON.stringify(diagnosis)}\n`);
    return { diagnosis, ms, states: states(diagnosis) };
  };
  const shell = (script: string) => host.run(['sh', '-c', script]);
  const mainPid = async () => (await host.run(['systemctl', 'show', '-p', 'MainPID', '--value', layout.unitName])).trim();
  const untilServed = async () => {
    // Bounded by the gateway's restart on a loaded machine, not a guess at it.
    for (let i = 0; i < 300; i += 1) {
      if (JSON.stringify(states(await occ.diagnoseAgentDeployment(bound))) === JSON.stringify(ALL_SUCCEEDED)) return;
      await sleep(200);
    }
    assert.fail('the gateway did not come back');
  };

  before(async () => {
    host = await startTestHost({ name: 'cdiag' });
    refusedPort = await closedLoopbackPort();
    driver = new SshComputeDriver({
      configuration: configFor({ stable: host, gone: { ...hostInfo(host), address: '127.0.0.1', port: refusedPort } }),
      logger: memoryLogger().logger,
      readinessTimeoutMs: 30_000,
    });
    occ = driver;
    await driver.ensureNamespace(binding.namespace);
    driver.bindAgent(binding);
    assert.equal((await driver.prepareRevision(rev1, context)).ready, true);
    await driver.activateRevision(rev1, context);
  });
  after(async () => {
    await driver?.close();
    await host?.down();
  });

  test('a served gateway: every check succeeds, the absent env file says so, and nothing from the host is in the answer', async () => {
    const { diagnosis, states: found } = await diagnose('served');
    assert.deepEqual(found, ALL_SUCCEEDED);
    assert.equal(diagnosis.checks.length, 19);
    const text = JSON.stringify(diagnosis);
    for (const leak of [ROOT, layout.unitName, layout.dir, binding.namespace.name]) assert.ok(!text.includes(leak), `the answer holds no ${leak}`);
  });

  test('occ-ssh diagnose prints the same checks, one line each, and --json the answer OCC receives', async () => {
    const dir = mkdtempSync(`${tmpdir()}/occ-cli-diagnose-`);
    writeFileSync(`${dir}/installation.yaml`, installationYaml({ stable: hostInfo(host) }));
    const cli = cliRunner(`${dir}/installation.yaml`, `${dir}/ledger.json`);
    const ids = ['--namespace', 'stable', '--namespace-id', binding.namespace.id, '--service-principal-id', binding.agent.servicePrincipalId, '--revision-id', rev1.id, '--revision-number', '1'];
    const text = await cli('diagnose', binding.agent.id, ...ids);
    assert.equal(text.code, EXIT.ok, text.err);
    assert.match(text.out, /^ {2}succeeded +unit active$/m);
    assert.match(text.out, /^ {2}succeeded +env-file mode +ENV_FILE_ABSENT$/m);
    const json = await cli('diagnose', binding.agent.id, ...ids, '--json');
    const answer = (JSON.parse(json.out) as { result: AgentDeploymentDiagnostics }).result;
    assertOccShape(answer, rev1.id);
    assert.deepEqual(states(answer), ALL_SUCCEEDED);
  });

  test('the operator env file: root:root 0600 passes; another mode or owner fails with its own code', async () => {
    await shell(`umask 077 && printf 'MODEL_KEY=secret-value\\n' > ${layout.operatorEnvFile}`);
    try {
      let { states: found } = await diagnose('env 0600');
      assert.deepEqual([found['env-file owner'], found['env-file mode']], ['succeeded', 'succeeded']);
      await host.run(['chmod', '0644', layout.operatorEnvFile]);
      ({ states: found } = await diagnose('env 0644'));
      assert.deepEqual([found['env-file owner'], found['env-file mode']], ['succeeded', 'failed:ENV_FILE_MODE']);
      await host.run(['chown', '1000:0', layout.operatorEnvFile]);
      const { diagnosis, states: owned } = await diagnose('env uid 1000');
      assert.equal(owned['env-file owner'], 'failed:ENV_FILE_OWNER');
      assert.ok(!JSON.stringify(diagnosis).includes('secret-value'));
    } finally {
      await host.run(['rm', '-f', layout.operatorEnvFile]);
    }
  });

  test('a gateway whose processes are stopped (SIGSTOP) accepts connections and never answers: the probe is cut at its bound', async () => {
    const pid = await mainPid();
    await host.run(['kill', '-STOP', pid]);
    try {
      const { ms, states: found } = await diagnose('frozen');
      assert.deepEqual(found, { ...ALL_SUCCEEDED, 'gateway ready': 'failed:GATEWAY_NO_ANSWER' });
      // The helper's own bounds total 4 s; a generous margin for ssh on a loaded machine.
      assert.ok(ms < 20_000, `diagnosis took ${ms} ms`);
    } finally {
      await host.run(['kill', '-CONT', pid]);
    }
  });

  test('a crashed gateway (SIGKILL): systemd restarting it, nothing listening; then it comes back', async () => {
    let found: Record<string, string> = {};
    // systemd restarts it after RestartSec=2; a diagnosis that came too late for the gap is repeated.
    for (let attempt = 0; attempt < 5 && found['unit active'] !== 'failed:UNIT_RESTARTING'; attempt += 1) {
      await untilServed();
      await host.run(['kill', '-KILL', await mainPid()]);
      ({ states: found } = await diagnose('crashed'));
    }
    assert.deepEqual(found, { ...ALL_SUCCEEDED, 'unit active': 'failed:UNIT_RESTARTING', 'listener owner': 'failed:LISTENER_MISSING', 'gateway ready': 'failed:GATEWAY_NOT_LISTENING' });
    await untilServed();
  });

  test('a tampered snapshot and an edited unit file fail their checks, and only those', async () => {
    const original = await host.run(['base64', '-w0', snapshot]);
    await shell(`printf ' ' >> ${snapshot}`);
    await shell(`printf '# edited\\n' >> ${layout.unitFile}`);
    try {
      const { states: found } = await diagnose('tampered');
      assert.deepEqual(found, { ...ALL_SUCCEEDED, 'snapshot hash': 'failed:SNAPSHOT_TAMPERED', 'unit file': 'failed:UNIT_REWRITE_PENDING', 'unit loaded': 'failed:UNIT_RELOAD_PENDING' });
    } finally {
      await shell(`echo ${original} | base64 -d > ${snapshot} && sed -i '$d' ${layout.unitFile} && systemctl daemon-reload`);
    }
    assert.deepEqual((await diagnose('restored')).states, ALL_SUCCEEDED);
  });

  test("another account's listener on the Agent's port is reported foreign, and its /readyz answer is not taken for the gateway's", async () => {
    await host.run(['systemctl', 'stop', layout.unitName]);
    await shell(`echo '{}' > /etc/occ-squat.json && chmod 644 /etc/occ-squat.json`);
    const port = (JSON.parse(await host.run(['cat', layout.marker])) as { port: number }).port;
    await host.run(squatterArgv('occ-diag-squatter', 65534, port));
    try {
      const answers = async () => (await host.exec(['curl', '-sf', '-o', '/dev/null', `http://127.0.0.1:${port}/readyz`])).code === 0;
      for (let i = 0; i < 600 && !(await answers()); i += 1) await sleep(100);
      assert.ok(await answers(), 'the squatter answers /readyz');
      const { states: found } = await diagnose('squatted');
      assert.deepEqual(found, { ...ALL_SUCCEEDED, 'unit active': 'failed:UNIT_INACTIVE', 'listener owner': 'failed:LISTENER_FOREIGN', 'gateway ready': 'unknown' });
    } finally {
      await host.exec(['systemctl', 'stop', 'occ-diag-squatter']);
      await host.run(['systemctl', 'start', layout.unitName]);
    }
    await untilServed();
  });

  test("a stopped revision (OCC's stopRevision): unit inactive and disabled, no current, nothing served or listening", async () => {
    await driver.stopRevision(rev1);
    const { states: found } = await diagnose('stopped');
    assert.deepEqual(found, {
      ...ALL_SUCCEEDED,
      'unit active': 'failed:UNIT_INACTIVE',
      'unit enabled': 'failed:UNIT_DISABLED',
      'revision current': 'failed:CURRENT_MISSING',
      'revision served': 'failed:SERVED_MISSING',
      'listener owner': 'failed:LISTENER_MISSING',
      'gateway ready': 'failed:GATEWAY_NOT_LISTENING',
    });
  });

  test('a revision never prepared here: its snapshot is missing and the unit file cannot be judged', async () => {
    const { states: found } = await diagnose('never prepared', { ...binding, revision: occBinding('diag', 'stable', 9).revision });
    assert.equal(found['snapshot marker'], 'failed:SNAPSHOT_MISSING');
    assert.equal(found['snapshot hash'], 'unknown');
    assert.equal(found['unit file'], 'unknown');
    assert.equal(found['revision current'], 'failed:CURRENT_MISSING');
  });

  test('a binding whose revision is of another Agent is refused before any host is reached', async () => {
    const error = await rejection(occ.diagnoseAgentDeployment({ ...binding, revision: occBinding('diag-other', 'stable', 1).revision }));
    assert.deepEqual([error.code, error.failure], ['unbound', 'permanent']);
  });

  test('an unreachable host: host reachable fails with HOST_UNREACHABLE, every other check is unknown and unmade', async () => {
    const { states: found, diagnosis } = await diagnose('unreachable', occBinding('diag-gone', 'gone', 1));
    assert.equal(found['host reachable'], 'failed:HOST_UNREACHABLE');
    assert.deepEqual(
      diagnosis.checks.filter((check) => check.component !== 'host').map((check) => [check.state, check.checkedAt]),
      diagnosis.checks.slice(1).map(() => ['unknown', null]),
    );
  });
});
