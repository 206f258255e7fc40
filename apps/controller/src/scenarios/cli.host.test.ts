// occ-ssh against a real host: the worker flow with a durable ledger, status, exit codes and error naming.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { cliRunner, sink } from '../../test/cli-runner.js';
import { hostInfo, installationYaml } from '../../test/hosts.js';
import { closedLoopbackPort } from '@occ-ssh/test-support';
import { EXIT, runCli } from '../cli/main.js';

describe('occ-ssh on a real host', () => {
  let host: TestHost;
  const dir = mkdtempSync(`${tmpdir()}/occ-cli-`);
  const config = `${dir}/installation.yaml`;
  const ledger = `${dir}/ledger.json`;
  const revisionFile = (number: number, configuration: Record<string, unknown> = {}) => {
    const path = `${dir}/rev-${number}.json`;
    writeFileSync(
      path,
      JSON.stringify({
        namespace: { id: 'ns-cli', name: 'stable' },
        agent: { id: 'agent-cli', servicePrincipal: { id: 'sp-cli' } },
        revision: { id: `rev-cli-${number}`, number, configuration: { gateway: { mode: 'local' }, ...configuration } },
      }),
    );
    return path;
  };
  const cli = cliRunner(config, ledger);

  before(async () => {
    host = await startTestHost({ name: 'ccli' });
    // A closed loopback port: unreachable without dialling any address this machine does not own.
    writeFileSync(config, installationYaml({ stable: hostInfo(host), gone: { ...hostInfo(host), address: '127.0.0.1', port: await closedLoopbackPort() } }));
  });
  after(() => host?.down());

  test('deploy prints each step with its time on stderr, its result on stdout, and records the active revision', async () => {
    const result = await cli('deploy', '--revision', revisionFile(1));
    assert.equal(result.code, EXIT.ok, result.err);
    for (const step of ['ensure namespace', 'prepare revision', 'commit active revision (ledger compare-and-set)', 'activate (unit, current, restart, readiness)']) {
      assert.match(result.err, new RegExp(`${step.replace(/[()]/g, '\\$&')} \\.\\.\\. ok \\(\\d+(\\.\\d+)? m?s\\)`));
    }
    // A pipe or a file gets the result alone.
    assert.match(result.out, /^deploy: done in \d+(\.\d+)? m?s\n$/);
    console.log(`occ-ssh deploy stdout:\n${result.out}occ-ssh deploy stderr:\n${result.err}`);
  });

  test('OCC_CONFIG_PATH names the Installation when --config is not given', async () => {
    const out = sink();
    const err = sink();
    const code = await runCli(['status', '--namespace', 'stable', '--ledger', ledger], out.stream, err.stream, {}, { OCC_CONFIG_PATH: config });
    assert.equal(code, EXIT.ok, err.text());
    assert.match(out.text(), /current rev-cli-1; served rev-cli-1 since /);
    const missing = sink();
    assert.equal(await runCli(['status'], sink().stream, missing.stream, {}, {}), EXIT.usage);
    assert.match(missing.text(), /--config <installation\.yaml> is required when OCC_CONFIG_PATH is not set/);
  });

  test('a second deploy cuts over and retires the previous revision; --json prints one result', async () => {
    const result = await cli('deploy', '--revision', revisionFile(2), '--json');
    assert.equal(result.code, EXIT.ok, result.err);
    const lines = result.out.trim().split('\n');
    assert.equal(lines.length, 1);
    const json = JSON.parse(lines[0]!) as { ok: boolean; result: { active: string; retired: string } };
    assert.equal(json.ok, true);
    assert.equal(json.result.active, 'rev-cli-2');
    assert.equal(json.result.retired, 'rev-cli-1');
  });

  test('status shows the Agent, its port, current and served revision, unit state and readiness', async () => {
    const result = await cli('status', '--namespace', 'stable');
    assert.equal(result.code, EXIT.ok, result.err);
    assert.match(result.out, /Agent agent-cli {2}account openclaw-[0-9a-f]{12} \(\d+:\d+\) {2}port 18800/);
    assert.match(result.out, /: active, enabled; ready: yes/);
    assert.match(result.out, /current rev-cli-2; served rev-cli-2 since /);
    assert.match(result.out, /revisions: 2:rev-cli-2/);
    assert.match(
      result.out,
      /recent root operations \(journalctl _UID=0 _TRANSPORT=syslog SYSLOG_IDENTIFIER=occ-ssh-helper\):\n(?: {6}\S+ \S+ occ-ssh-helper\[\d+\]: operation=.*\n)*? {6}\S+ \S+ occ-ssh-helper\[\d+\]: operation=retire-revision outcome=ok request=[0-9a-f-]{36} namespace=ns-cli agent=agent-cli revision=rev-cli-1 ms=\d+ changes=\d+ plan=[0-9a-f]{64} version=\S+ helper=[0-9a-f]{64}\n/,
    );
  });

  test('an ownership conflict exits 3 and names the host, operation and marker path', async () => {
    const result = await cli('deploy', '--revision', revisionFile(3), '--namespace-id', 'ns-cli', '--agent-id', 'agent-cli', '--service-principal-id', 'sp-other');
    assert.equal(result.code, EXIT.permanent);
    assert.match(result.err, /permanent ownership error/);
    assert.match(result.err, /host=stable/);
    assert.match(result.err, /operation=prepare-revision/);
    assert.match(result.err, /path=\/var\/lib\/openclaw-enterprise\//);
  });

  test('an unreachable host exits 75 (retryable) naming the host and its cause; the recap lists every host', async () => {
    const result = await cli('preflight');
    assert.equal(result.code, EXIT.unreachable);
    assert.match(result.err, /recap: 1 ok, 0 failed, 1 unreachable\n {2}stable : ok\n {2}gone {3}: unreachable {2}transport \(refused\)\n/);
    assert.match(result.err, /\(refused\): the connection was refused; check the port/);
    assert.match(result.err, /retryable transport error/);
    assert.match(result.err, /host=gone/);
  });

  test('preflight of a host that cannot enforce SocketBind* succeeds and prints the warning (and --json carries it)', async () => {
    // The test host cannot enforce the link-local IPAddressDeny= either: its warning follows.
    const single = `${dir}/single.yaml`;
    writeFileSync(single, installationYaml({ stable: hostInfo(host) }));
    const out = sink();
    const err = sink();
    assert.equal(await runCli(['preflight', '--config', single], out.stream, err.stream), EXIT.ok, err.text());
    assert.match(
      err.text(),
      /preflight \(1 host\(s\)\) \.\.\. ok \([^)]+\) {2}2 warning\(s\)\n {2}warning SOCKET_BIND_NOT_ENFORCED: host "stable" \(\S+\) cannot enforce .* then stands alone\.\n {2}warning LINK_LOCAL_NOT_DENIED: host "stable" \(\S+\) cannot enforce .*IPAddressDeny=.*\(docs\/hardening\.md\)\.\nrecap: 1 ok, 0 failed, 0 unreachable\n/,
    );
    const json = sink();
    assert.equal(await runCli(['preflight', '--config', single, '--json'], json.stream, err.stream), EXIT.ok);
    const parsed = JSON.parse(json.text()) as { result: { warnings: { code: string; message: string }[] } };
    assert.deepEqual(
      parsed.result.warnings.map((w) => w.code),
      ['SOCKET_BIND_NOT_ENFORCED', 'LINK_LOCAL_NOT_DENIED'],
    );
  });

  test('delete-agent removes one Agent, prints what it removed, and then that nothing was left; the other Agent keeps serving', async () => {
    const path = `${dir}/other.json`;
    writeFileSync(
      path,
      JSON.stringify({
        namespace: { id: 'ns-cli', name: 'stable' },
        agent: { id: 'agent-cli-2', servicePrincipalId: 'sp-cli-2' },
        revision: { id: 'rev-other-1', number: 1, configuration: { gateway: { mode: 'local' } } },
      }),
    );
    assert.equal((await cli('deploy', '--revision', path)).code, EXIT.ok);
    const flags = ['--namespace', 'stable', '--namespace-id', 'ns-cli', '--agent-id', 'agent-cli-2', '--service-principal-id', 'sp-cli-2'];
    const first = await cli('delete-agent', ...flags, '--yes');
    assert.equal(first.code, EXIT.ok, first.err);
    assert.match(first.err, /delete agent agent-cli-2 from Namespace stable \.\.\. ok \([^)]+\) {2}removed unit, directory, account; port 18801 is free\n/);
    const again = await cli('delete-agent', ...flags, '--yes');
    assert.equal(again.code, EXIT.ok, again.err);
    assert.match(again.err, /delete agent agent-cli-2 from Namespace stable \.\.\. ok \([^)]+\) {2}nothing was left to remove\n/);
    const status = await cli('status', '--namespace', 'stable', '--json');
    const agents = (JSON.parse(status.out) as { result: { hosts: { stable: { namespaces: { agents: { agentId: string; ready?: boolean }[] }[] } } } }).result.hosts.stable.namespaces[0]!.agents;
    assert.deepEqual(
      agents.map((agent) => agent.agentId),
      ['agent-cli'],
    );
  });

  test('delete-agent of an Agent recorded for another ServicePrincipal exits 3 and removes nothing', async () => {
    const result = await cli('delete-agent', '--namespace', 'stable', '--namespace-id', 'ns-cli', '--agent-id', 'agent-cli', '--service-principal-id', 'sp-other', '--json', '--yes');
    assert.equal(result.code, EXIT.permanent);
    assert.match(result.out, /"code":"ownership"/);
    const status = await cli('status', '--namespace', 'stable');
    assert.match(status.out, /: active, enabled; ready: yes/);
  });

  test('stop, retire and delete-namespace', async () => {
    assert.equal((await cli('stop', '--revision', revisionFile(2))).code, EXIT.ok);
    assert.equal((await cli('retire', '--revision', revisionFile(2))).code, EXIT.ok);
    const deleted = await cli('delete-namespace', '--revision', revisionFile(2), '--json', '--yes');
    assert.equal(deleted.code, EXIT.ok, deleted.err);
    const status = await cli('status', '--namespace', 'stable', '--json');
    assert.deepEqual((JSON.parse(status.out) as { result: { hosts: { stable: { namespaces: unknown[] } } } }).result.hosts.stable.namespaces, []);
  });

  test('deploy to a host whose known_hosts entry is wrong shows the failed step and names the host key', async () => {
    const wrongKey = `${dir}/stranger`;
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', wrongKey]);
    const knownHostsFile = `${dir}/known_hosts.wrong`;
    writeFileSync(knownHostsFile, `${host.address} ${readFileSync(`${wrongKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
    const wrong = `${dir}/installation.wrong.yaml`;
    writeFileSync(wrong, installationYaml({ stable: hostInfo(host) }, { knownHostsFile }));
    const out = sink();
    const err = sink();
    const code = await runCli(['deploy', '--revision', revisionFile(4), '--config', wrong, '--ledger', ledger], out.stream, err.stream);
    assert.equal(code, EXIT.unreachable);
    assert.match(err.text(), /ensure namespace \.\.\. failed: retryable transport \(host-key\) \(\d/);
    assert.doesNotMatch(err.text(), /ensure namespace \.\.\. ok/);
    assert.match(err.text(), /ssh could not run the helper \(host-key\): the host key is not the one in ssh\.knownHostsFile/);
    assert.match(err.text(), /transportCause=host-key/);
  });

  test('Ctrl-C stops waiting, closes the SSH masters and removes the control directory', async (t) => {
    // A TMPDIR of this test's own: test files running at the same time make control directories in the shared one.
    const privateTmp = mkdtempSync(`${tmpdir()}/occ-cli-ctrlc-`);
    const sharedTmp = process.env['TMPDIR'];
    process.env['TMPDIR'] = privateTmp;
    t.after(() => {
      if (sharedTmp === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = sharedTmp;
      rmSync(privateTmp, { recursive: true, force: true });
    });
    const controlDirs = () => new Set(readdirSync(privateTmp).filter((entry) => entry.startsWith('occ-ssh-mux-')));
    const before = controlDirs();
    const interrupt = new AbortController();
    // A terminal: the activation step ticks, showing the helper's heartbeats.
    const out = sink();
    const err = sink();
    // The steps tick on stderr when it is a terminal.
    Object.assign(err.stream, { isTTY: true });
    const slow = revisionFile(5, { fixtureGateway: { readyAfterMs: 20_000 } });
    const running = runCli(['deploy', '--revision', slow, '--config', config, '--ledger', ledger], out.stream, err.stream, { signal: interrupt.signal });
    for (let i = 0; i < 300 && !/activate \(unit, current, restart, readiness\) \.\.\. \d+\.\d+ s, host working \(\d+ heartbeats\)/.test(err.text()); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(err.text(), /activate \(unit, current, restart, readiness\) \.\.\. \d+\.\d+ s, host working \(\d+ heartbeats\)/, "the activation ticks with the helper's heartbeats");
    assert.ok(
      [...controlDirs()].some((entry) => !before.has(entry)),
      'a control directory exists while it runs',
    );
    interrupt.abort();
    assert.equal(await running, EXIT.interrupted);
    assert.match(err.text(), /interrupted; connections closed and temporary files removed/);
    assert.deepEqual(
      [...controlDirs()].filter((entry) => !before.has(entry)),
      [],
    );
  });
});
