// OCC's runtime view of an SSH Agent on a real host, in OCC's shapes: a served gateway is one pod; a
// real crash (kill -9 of the gateway's main process) is counted, reported and readable as the previous
// instance; a stopped gateway has no pod. The gateway is hostile: it writes a 1 MiB line, invalid
// UTF-8 and escapes, and holds /readyz unanswered; root and a sibling forge lines under its unit's name.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { accountOf, closedLoopbackPort, installTenantGateway, layoutOf } from '@occ-ssh/test-support';
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import { ownerOf } from '@occ-ssh/protocol';
import { SshComputeDriver } from './driver.js';
import type { AgentRuntimeDescription, AgentRuntimeLogChunk, AgentRuntimeLogRequest } from './runtime-types.js';
import type { ComputeAgentRevisionBinding } from './types.js';
import { rejection } from '../test/fakes.js';
import { cliRunner } from '../test/cli-runner.js';
import { agentBinding, configFor, hostInfo, installationYaml, memoryLogger, revisionOf } from '../test/hosts.js';

/**
 * The gateway: at each start it writes what its state directory asks for (a 1 MiB line, invalid UTF-8,
 * escapes), then a line naming its PID; while `silent` exists there, /readyz requests go unanswered
 * with the listener held open. Then the fixture gateway's own behaviour.
 */
const GATEWAY = `
const fs = require('node:fs');
const http = require('node:http');
const dir = process.env.OPENCLAW_STATE_DIR;
const flag = (name) => fs.existsSync(dir + '/' + name);
if (flag('hostile')) {
  fs.writeSync(1, 'x'.repeat(1024 * 1024) + '\\n');
  fs.writeSync(1, Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0x20, 0xc3, 0x0a]));
  fs.writeSync(1, 'escape \\x1b[2J\\x1b]0;owned\\x07 end\\n');
}
fs.writeSync(1, 'runtime-view start pid=' + process.pid + '\\n');
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req) {
  if (event === 'request' && req.url === '/readyz' && flag('silent')) return true;
  return emit.apply(this, arguments);
};
`;

const bytes = (lines: AgentRuntimeLogChunk['lines']) => lines.reduce((sum, line) => sum + Buffer.byteLength(line.raw), 0);
const show = (label: string, value: unknown) => console.log(`runtime-view ${label}: ${JSON.stringify(value, null, 2)}`);

describe("OCC's runtime view of an SSH Agent on a real host", () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  const binding = agentBinding('rtview', 'stable');
  const sibling = { namespace: binding.namespace, agent: { ...binding.agent, id: 'agent-rtsib', servicePrincipalId: 'sp-rtsib' } };
  const rev1: ComputeAgentRevisionBinding = { ...binding, revision: revisionOf(binding, 1) };
  const rev2: ComputeAgentRevisionBinding = { ...binding, revision: revisionOf(binding, 2, { fixtureGateway: { readyAfterMs: 100 } }) };
  const unit = () => layoutOf(ownerOf(binding)).unitName;
  const stateDir = () => layoutOf(ownerOf(binding)).state;
  const describeNow = (target = rev1) => driver.describeAgentRuntime(target, AbortSignal.timeout(60_000));
  const request = (description: AgentRuntimeDescription, extra: Partial<AgentRuntimeLogRequest> = {}): AgentRuntimeLogRequest => {
    const pod = description.sources[0]!.pods[0]!;
    return { source: 'gateway', pod: pod.name, podUid: pod.uid, container: pod.container, previous: false, tailLines: 1000, limitBytes: 256 * 1024, signal: AbortSignal.timeout(60_000), ...extra };
  };

  let crashedPid = '';
  const dir = mkdtempSync(`${tmpdir()}/occ-runtime-view-`);
  const cli = cliRunner(`${dir}/installation.yaml`, `${dir}/ledger.json`);

  before(async () => {
    host = await startTestHost({ name: 'rtview' });
    const gateway = await installTenantGateway(host, 'runtime-view', GATEWAY);
    writeFileSync(`${dir}/installation.yaml`, installationYaml({ stable: { ...hostInfo(host), fixtureGatewayPath: gateway } }));
    driver = new SshComputeDriver({ configuration: configFor({ stable: { ...hostInfo(host), fixtureGatewayPath: gateway } }), logger: memoryLogger().logger, readinessTimeoutMs: 30_000 });
    await driver.ensureNamespace(binding.namespace);
    for (const target of [rev1, { ...sibling, revision: revisionOf(sibling, 1) }]) {
      driver.bindAgent(target);
      assert.equal((await driver.prepareRevision(target.revision)).ready, true);
      await driver.activateRevision(target.revision);
    }
  });
  after(async () => {
    await driver?.close();
    await host?.down();
  });

  test('a served gateway is one running, ready pod; its logs are its own lines; there is no previous instance yet', async () => {
    const description = await describeNow();
    show('served describeAgentRuntime', description);
    assert.equal(description.revisionId, rev1.revision.id);
    assert.equal(description.pods.length, 1);
    const [pod] = description.pods;
    assert.equal(pod!.name, unit());
    assert.equal(pod!.role, 'gateway');
    assert.equal(pod!.cluster, 'execution');
    assert.equal(pod!.phase, 'Running');
    assert.equal(pod!.ready, true);
    assert.match(pod!.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const [container] = pod!.containers;
    assert.deepEqual({ ...container, startedAt: null }, { name: 'gateway', state: 'running', reason: null, ready: true, restartCount: 0, startedAt: null, lastTermination: null });
    for (const time of [container!.startedAt, pod!.createdAt, description.observedAt]) assert.equal(new Date(time!).toISOString().slice(0, 19), time!.slice(0, 19));
    assert.ok(
      pod!.events.some((event) => event.reason === 'Started' && event.type === 'Normal'),
      JSON.stringify(pod!.events),
    );
    assert.deepEqual(description.sources, [
      { id: 'gateway', kind: 'container', pods: [{ name: unit(), uid: pod!.uid, container: 'gateway', restartCount: 0 }], available: true, retention: description.sources[0]!.retention },
    ]);
    assert.match(description.sources[0]!.retention, new RegExp(`^journald namespace ${GATEWAY_LOG_NAMESPACE}: journald defaults`));
    assert.deepEqual((await driver.describeAgentRuntime(rev1, AbortSignal.timeout(60_000), { events: false })).pods[0]!.events, []);

    const page = await driver.readAgentRuntimeLogs(rev1, request(description));
    show('served readAgentRuntimeLogs', page);
    assert.deepEqual(page.stream, { source: 'gateway', pod: unit(), podUid: pod!.uid, container: 'gateway' });
    assert.ok(page.lines.some((line) => /^runtime-view start pid=\d+$/.test(line.raw)));
    assert.ok(page.lines.some((line) => line.raw.startsWith('fixture gateway listening')));
    for (const line of page.lines) assert.match(line.time!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const previous = await rejection(driver.readAgentRuntimeLogs(rev1, request(description, { previous: true })));
    assert.equal(previous.code, 'admission');
    assert.equal(previous.failure, 'permanent');
    assert.match(previous.message, /no previous instance in this pod/);
  });

  test('lines forged under the unit name by root and by a sibling account, with logger and systemd-cat, never appear', async () => {
    const other = accountOf(ownerOf(sibling));
    const [uid, gid] = (await host.run(['sh', '-c', `id -u ${other}; id -g ${other}`])).trim().split('\n');
    const asSibling = ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'];
    const namespaceSocket = `/run/systemd/journal.${GATEWAY_LOG_NAMESPACE}/dev-log`;
    for (const [who, prefix] of [
      ['root', []],
      ['sibling', asSibling],
    ] as const) {
      await host.run([...prefix, 'logger', '-t', unit(), '--', `FORGED-${who}-logger`]);
      await host.run([...prefix, 'logger', '--socket', namespaceSocket, '-t', unit(), '--', `FORGED-${who}-namespace`]);
      await host.run([...prefix, 'systemd-cat', '-t', unit(), 'echo', `FORGED-${who}-systemd-cat`]);
    }
    // The forgeries are in the journals (so the check below can fail), under the unit's name.
    const journals = await host.run(['journalctl', `--namespace=+${GATEWAY_LOG_NAMESPACE}`, '--no-pager', '-o', 'cat', `SYSLOG_IDENTIFIER=${unit()}`]);
    assert.equal(journals.match(/FORGED-/g)?.length, 6, journals);
    const page = await driver.readAgentRuntimeLogs(rev1, request(await describeNow()));
    assert.deepEqual(
      page.lines.filter((line) => line.raw.includes('FORGED')),
      [],
    );
    assert.ok(page.lines.some((line) => line.raw.startsWith('runtime-view start')));
  });

  test('kill -9 of the main process: the restart is counted, the termination reported, and previous returns the instance before', async () => {
    const before = await describeNow();
    const oldPid = (await host.run(['systemctl', 'show', '-p', 'MainPID', '--value', unit()])).trim();
    crashedPid = oldPid;
    await host.run(['sh', '-c', `touch ${stateDir()}/hostile && kill -9 ${oldPid}`]);
    let after = await describeNow();
    for (let i = 0; i < 120 && !(after.pods[0]?.ready && after.pods[0].containers[0]!.restartCount === 1); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await describeNow();
    }
    show('crashed describeAgentRuntime', after);
    const [pod] = after.pods;
    assert.equal(pod!.uid, before.pods[0]!.uid, "systemd's restart keeps the pod");
    assert.equal(pod!.phase, 'Running');
    assert.equal(pod!.ready, true);
    const [container] = pod!.containers;
    assert.equal(container!.restartCount, 1);
    assert.deepEqual({ ...container!.lastTermination, finishedAt: null }, { reason: 'killed by signal 9 (SIGKILL)', exitCode: 137, finishedAt: null });
    assert.ok(Date.parse(container!.lastTermination!.finishedAt!) <= Date.parse(container!.startedAt!));
    // This pod's events only: from the activation's start, through the crash, to systemd's restart.
    // systemd 252 (Debian 12) logs the unit stopped between the back-off and the restart; 257
    // (Debian 13) goes from the back-off to the start without that message.
    const stoppedLogged = /^systemd 252\b/.test(await host.run(['systemctl', '--version']));
    assert.deepEqual(
      pod!.events.map((event) => event.reason),
      ['Started', 'Killed', 'Failed', 'BackOff', ...(stoppedLogged ? ['Stopped'] : []), 'Started'],
    );
    assert.equal(pod!.events[1]!.message, 'main process killed by signal 9 (SIGKILL)');
    assert.equal(after.sources[0]!.pods[0]!.restartCount, 1);

    const previous = await driver.readAgentRuntimeLogs(rev1, request(after, { previous: true }));
    show('crashed readAgentRuntimeLogs previous', previous);
    assert.ok(previous.lines.some((line) => line.raw === `runtime-view start pid=${oldPid}`));
    assert.ok(!previous.lines.some((line) => line.raw.startsWith('runtime-view start') && line.raw !== `runtime-view start pid=${oldPid}`));
    const current = await driver.readAgentRuntimeLogs(rev1, request(after, { tailLines: 6 }));
    show('crashed readAgentRuntimeLogs current (tailLines 6)', {
      ...current,
      lines: current.lines.map((line) => ({ ...line, raw: line.raw.length > 200 ? `${line.raw.slice(0, 40)}... (${Buffer.byteLength(line.raw)} bytes)` : line.raw })),
    });
    assert.ok(current.lines.some((line) => /^runtime-view start pid=\d+$/.test(line.raw) && line.raw !== `runtime-view start pid=${oldPid}`));
    assert.ok(
      current.lines.some((line) => line.raw === 'escape \x1b[2J\x1b]0;owned\x07 end'),
      'raw means raw: escapes are the gateway bytes',
    );
    assert.ok(
      current.lines.some((line) => line.raw === 'bad\ufffd\ufffd \ufffd'),
      'invalid UTF-8 decoded with replacement',
    );
  });

  test('occ-ssh status and occ-ssh logs --previous show what OCC shows', async () => {
    const description = await describeNow();
    const [pod] = description.pods;
    const status = await cli('status', '--namespace', 'stable');
    assert.equal(status.code, 0, status.err);
    const text = status.out + status.err;
    console.log(`runtime-view occ-ssh status:\n${text}`);
    assert.match(text, new RegExp(`runtime: pod ${pod!.uid} Running, ready; gateway running, restarts 1`));
    assert.match(text, /last termination: killed by signal 9 \(SIGKILL\) \(exit code 137\) at /);
    assert.match(text, /event \S+ Warning Killed: main process killed by signal 9 \(SIGKILL\)/);
    const json = await cli('status', '--namespace', 'stable', '--json');
    assert.equal(JSON.parse(json.out).result.runtime[binding.agent.id].pods[0].uid, pod!.uid);
    const identity = [
      '--namespace',
      'stable',
      '--namespace-id',
      binding.namespace.id,
      '--service-principal-id',
      binding.agent.servicePrincipalId,
      '--revision-id',
      rev1.revision.id,
      '--revision-number',
      '1',
    ];
    const previous = await cli('logs', binding.agent.id, ...identity, '--previous');
    assert.equal(previous.code, 0, previous.err);
    assert.match(previous.out, new RegExp(`${binding.agent.id}: runtime-view start pid=${crashedPid}\n`));
    assert.doesNotMatch(previous.out, new RegExp(`runtime-view start pid=(?!${crashedPid}\n)`));
    assert.equal((await cli('logs', binding.agent.id, ...identity, '--previous', '--follow')).code, 2);
  });

  test('a 1 MiB line and invalid UTF-8 stay within limitBytes, exactly', async () => {
    const description = await describeNow();
    const whole = await driver.readAgentRuntimeLogs(rev1, request(description));
    assert.ok(bytes(whole.lines) <= 256 * 1024);
    assert.equal(whole.truncated, true, 'the 1 MiB line does not fit in 256 KiB');
    assert.ok(
      whole.lines.some((line) => /^x{10000,}$/.test(line.raw)),
      'long entries are shown, not withheld',
    );
    for (const limitBytes of [70_000, 100, 5, 1]) {
      const page = await driver.readAgentRuntimeLogs(rev1, request(description, { limitBytes }));
      assert.ok(bytes(page.lines) <= limitBytes, `${bytes(page.lines)} bytes within ${limitBytes}`);
      assert.ok(page.lines.length >= 1 || limitBytes < 4);
      assert.equal(page.truncated, true);
    }
    const limited = await driver.readAgentRuntimeLogs(rev1, request(description, { previous: false, limitBytes: 70_000 }));
    console.log(`runtime-view limitBytes 70000: ${limited.lines.length} lines, ${bytes(limited.lines)} bytes, truncated ${limited.truncated}`);
  });

  test('describe answers within a few seconds while the gateway holds /readyz unanswered', async () => {
    await host.run(['touch', `${stateDir()}/silent`]);
    try {
      const started = Date.now();
      const description = await describeNow();
      const elapsed = Date.now() - started;
      console.log(`runtime-view describe with /readyz held: ${elapsed} ms`);
      assert.ok(elapsed < 15_000, `${elapsed} ms`);
      assert.equal(description.pods[0]!.phase, 'Running');
      assert.equal(description.pods[0]!.ready, false);
      assert.equal(description.pods[0]!.containers[0]!.ready, false);
    } finally {
      await host.run(['rm', '-f', `${stateDir()}/silent`]);
    }
  });

  test('a source, container or pod that is not listed is refused before any host is contacted; a replaced pod by the host', async () => {
    const description = await describeNow();
    const closed = new SshComputeDriver({ configuration: configFor({ stable: { ...hostInfo(host), address: '127.0.0.1', port: await closedLoopbackPort() } }), logger: memoryLogger().logger });
    try {
      for (const [change, pattern] of [
        [{ source: 'agent' }, /source "agent" is not listed/],
        [{ container: 'sidecar' }, /container "sidecar" is not listed/],
        [{ pod: 'openclaw-enterprise-gateway-000000000000.service' }, /is not Agent agent-rtview's gateway unit/],
        [{ podUid: '../../etc' }, /podUid is not a pod ID/],
        [{ tailLines: 0 }, /tailLines must be a positive integer/],
        [{ limitBytes: 1.5 }, /limitBytes must be a positive integer/],
      ] as const) {
        const error = await rejection(closed.readAgentRuntimeLogs(rev1, request(description, change as Partial<AgentRuntimeLogRequest>)));
        assert.equal(error.code, 'admission', `${JSON.stringify(change)}: ${error.message}`);
        assert.equal(error.failure, 'permanent');
        assert.match(error.message, pattern);
      }
      // The same driver does reach for the host with a valid request: the refusals above never did.
      const reached = await rejection(closed.readAgentRuntimeLogs(rev1, request(description)));
      assert.equal(reached.code, 'transport');
    } finally {
      await closed.close();
    }
    const stale = await rejection(driver.readAgentRuntimeLogs(rev1, request(description, { podUid: '00000000-0000-4000-8000-000000000000' })));
    assert.equal(stale.code, 'admission');
    assert.match(stale.message, /is not the pod of revision/);
  });

  test('another revision current, then stopped: NO_POD, and its logs are refused', async () => {
    const first = await describeNow();
    assert.equal((await driver.prepareRevision(rev2.revision)).ready, true);
    await driver.activateRevision(rev2.revision);
    const replaced = await describeNow(rev1);
    assert.deepEqual(replaced.pods, []);
    assert.deepEqual({ ...replaced.sources[0], retention: '' }, { id: 'gateway', kind: 'container', pods: [], available: false, unavailableCode: 'NO_POD', retention: '' });
    const current = await describeNow(rev2);
    assert.notEqual(current.pods[0]!.uid, first.pods[0]!.uid, 'a new activation is a new pod');
    assert.equal(current.pods[0]!.containers[0]!.restartCount, 0);

    await driver.stopRevision(rev2.revision);
    const stopped = await describeNow(rev2);
    show('stopped describeAgentRuntime', stopped);
    assert.deepEqual(stopped.pods, []);
    assert.equal(stopped.sources[0]!.available, false);
    assert.equal(stopped.sources[0]!.unavailableCode, 'NO_POD');
    const error = await rejection(driver.readAgentRuntimeLogs(rev2, request(current)));
    show('stopped readAgentRuntimeLogs', { code: error.code, failure: error.failure, message: error.message });
    assert.ok(error instanceof ComputeError);
    assert.equal(error.code, 'admission');
    assert.match(error.message, /has no pod on the host \(not-current\)/);
  });
});
