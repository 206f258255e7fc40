// occ-ssh commands that say what happened, on a real host: stop of a revision that is not running,
// confirmed deletions, status once per host, and SIGTERM/SIGHUP ending a run as Ctrl-C does.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { sink } from '../../test/cli-runner.js';
import { hostInfo, installationYaml } from '../../test/hosts.js';
import { EXIT, runCli } from '../cli/main.js';

/** A terminal that types `answer` once asked. */
function terminal(answer: string) {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  return { input, answer: () => input.write(`${answer}\n`) };
}

const ENTRY = fileURLToPath(new URL('../cli/occ-ssh.ts', import.meta.url));
const NETGUARD = fileURLToPath(new URL('../../../../tools/netguard/src/register.ts', import.meta.url));

describe('occ-ssh commands that tell the truth, on a real host', () => {
  let host: TestHost;
  const dir = mkdtempSync(`${tmpdir()}/occ-cli-truth-`);
  const config = `${dir}/installation.yaml`;
  const ledger = `${dir}/ledger.json`;
  // A temporary directory of this file's own: other runs on the machine create control directories too.
  const privateTmp = `${dir}/t`;
  mkdirSync(privateTmp);
  const savedTmp = process.env['TMPDIR'];
  const controlDirs = () => new Set(readdirSync(privateTmp).filter((entry) => entry.startsWith('occ-ssh-mux-')));
  const revisionFile = (number: number, configuration: Record<string, unknown> = {}, namespace = 'stable') => {
    const path = `${dir}/rev-${namespace}-${number}.json`;
    writeFileSync(
      path,
      JSON.stringify({
        namespace: { id: `ns-truth-${namespace}`, name: namespace },
        agent: namespace === 'stable' ? { id: 'agent-truth', servicePrincipal: { id: 'sp-truth' } } : { id: `agent-${namespace}`, servicePrincipal: { id: `sp-${namespace}` } },
        revision: { id: `rev-truth-${number}`, number, configuration: { gateway: { mode: 'local' }, ...configuration } },
      }),
    );
    return path;
  };
  const cli = async (argv: string[], input?: NodeJS.ReadableStream & { isTTY?: boolean }) => {
    const out = sink();
    const err = sink();
    const code = await runCli([...argv, '--config', config, '--ledger', ledger], out.stream, err.stream, input ? { input } : {});
    return { code, out: out.text(), err: err.text() };
  };

  before(async () => {
    process.env['TMPDIR'] = privateTmp;
    host = await startTestHost({ name: 'ctruth' });
    // Two Namespaces mapped to the one host.
    writeFileSync(config, installationYaml({ stable: hostInfo(host), beta: hostInfo(host) }));
  });
  after(async () => {
    if (savedTmp === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = savedTmp;
    await host?.down();
  });

  test('stop of a revision that is not running says so, exits 5 and changes nothing; stopping the running one exits 0', async () => {
    assert.equal((await cli(['deploy', '--revision', revisionFile(1)])).code, EXIT.ok);
    assert.equal((await cli(['deploy', '--revision', revisionFile(2)])).code, EXIT.ok);
    const notCurrent = await cli(['stop', '--revision', revisionFile(1)]);
    assert.equal(notCurrent.code, EXIT.nothingToDo, notCurrent.err);
    assert.match(notCurrent.err, /stop agent-truth \(revision 1\) \.\.\. ok \([^)]+\) {2}nothing was running\n/);
    assert.match(notCurrent.out, /stop: revision 1 \(rev-truth-1\) of agent-truth was not running; nothing changed\n/);
    const status = await cli(['status', '--namespace', 'stable']);
    assert.match(status.out, /: active, enabled; ready: yes/, 'the running gateway was not touched');
    const stopped = await cli(['stop', '--revision', revisionFile(2)]);
    assert.equal(stopped.code, EXIT.ok, stopped.err);
    assert.match(stopped.out, /stop: done in /);
    const again = await cli(['stop', '--revision', revisionFile(2), '--json']);
    assert.equal(again.code, EXIT.nothingToDo);
    assert.deepEqual((JSON.parse(again.out) as { result: unknown }).result, { stopped: null, nothingDone: 'revision 2 (rev-truth-2) of agent-truth was not running' });
  });

  test('status shows a host mapped by two Namespaces once, with both names, and keeps one --json entry per Namespace', async () => {
    const beta = await cli(['deploy', '--revision', revisionFile(1, {}, 'beta')]);
    assert.equal(beta.code, EXIT.ok, beta.err);
    const status = await cli(['status']);
    assert.equal(status.code, EXIT.ok, status.err);
    assert.match(status.err, /inventory of 1 host\(s\), in parallel \.\.\. ok/);
    assert.equal(status.out.match(/^ {2}host /gm)?.length, 1, status.out);
    assert.match(status.out, new RegExp(`^ {2}host ${host.address.replace(/\./g, '\\.')} \\(Namespaces stable, beta\\): ok$`, 'm'));
    assert.equal(status.out.match(/Namespace beta \(ns-truth-beta\)/g)?.length, 1, 'each Namespace is listed once');
    assert.match(status.err, /recap: 1 ok, 0 failed, 0 unreachable\n {2}stable, beta : ok\n/);
    const json = JSON.parse((await cli(['status', '--json'])).out) as { result: { hosts: Record<string, unknown> } };
    assert.deepEqual(Object.keys(json.result.hosts).sort(), ['beta', 'stable']);
  });

  test("status shows each Agent's memory as systemd accounts it and its restarts", async () => {
    const unitOf = async () => {
      const json = JSON.parse((await cli(['status', '--namespace', 'beta', '--json'])).out) as { result: { hosts: { beta: { namespaces: { namespaceName: string; agents: { unit: string }[] }[] } } } };
      return json.result.hosts.beta.namespaces.find((ns) => ns.namespaceName === 'beta')!.agents[0]!.unit;
    };
    const unit = await unitOf();
    const show = async (property: string) => (await host.run(['systemctl', 'show', `--property=${property}`, '--value', unit])).trim();
    assert.equal(await show('NRestarts'), '0');
    // The gateway dies; Restart=always starts it again after RestartSec=2.
    await host.run(['systemctl', 'kill', '--signal=SIGKILL', unit]);
    for (let i = 0; i < 100 && (await show('NRestarts')) !== '1'; i += 1) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await show('NRestarts'), '1');
    const status = await cli(['status', '--namespace', 'beta']);
    const memory = await show('MemoryCurrent');
    const expected = /^\d+$/.test(memory) ? `${Math.round(Number(memory) / 1024 / 1024)} MiB` : 'not accounted';
    const line = /^ {8}memory (.*); restarts (\S+)$/m.exec(status.out.slice(status.out.indexOf('Agent agent-beta')));
    assert.ok(line, status.out);
    assert.equal(line[2], '1');
    // MemoryCurrent moves between the two reads on a host that accounts it; compare only its kind there.
    assert.equal(line[1] === 'not accounted', expected === 'not accounted', `${line[1]} vs ${expected}`);
  });

  test('delete-namespace needs --yes off a terminal, asks on one, and deletes only when the Namespace name is typed', async () => {
    const flags = ['delete-namespace', '--namespace', 'beta', '--namespace-id', 'ns-truth-beta'];
    const piped = await cli(flags);
    assert.equal(piped.code, EXIT.usage);
    assert.match(piped.err, /delete-namespace deletes what it names: pass --yes to confirm when not asked on a terminal/);
    const json = await cli([...flags, '--json'], terminal('beta').input);
    assert.equal(json.code, EXIT.usage, '--json never asks');
    const wrong = terminal('stable');
    const declined = cli(flags, wrong.input);
    wrong.answer();
    const refused = await declined;
    assert.equal(refused.code, EXIT.notConfirmed);
    assert.match(
      refused.err,
      /delete-namespace removes Namespace beta \(ns-truth-beta\) with every Agent in it .* from \S+\.\nType the Namespace name to confirm: occ-ssh delete-namespace: not confirmed; nothing changed\n/,
    );
    const kept = await cli(['status', '--namespace', 'beta']);
    assert.match(kept.out, /Namespace beta \(ns-truth-beta\): 1 Agent\(s\)/);
    const right = terminal('beta');
    const confirmed = cli(flags, right.input);
    right.answer();
    assert.equal((await confirmed).code, EXIT.ok);
    const gone = JSON.parse((await cli(['status', '--namespace', 'stable', '--json'])).out) as { result: { hosts: { stable: { namespaces: { namespaceName: string }[] } } } };
    assert.deepEqual(
      gone.result.hosts.stable.namespaces.map((ns) => ns.namespaceName),
      ['stable'],
    );
    const agent = await cli(['delete-agent', '--namespace', 'stable', '--namespace-id', 'ns-truth-stable', '--agent-id', 'agent-truth', '--service-principal-id', 'sp-truth']);
    assert.equal(agent.code, EXIT.usage);
    assert.match(agent.err, /delete-agent deletes what it names: pass --yes/);
  });

  test('an interrupt says "connections closed" only once they are: the control directory is gone when the line is written', async () => {
    const before = controlDirs();
    const interrupt = new AbortController();
    const out = sink();
    let leftWhenSaid: string[] | undefined;
    const err = sink((text) => {
      if (text.includes('connections closed')) leftWhenSaid = [...controlDirs()].filter((entry) => !before.has(entry));
    });
    const running = runCli(['deploy', '--revision', revisionFile(3, { fixtureGateway: { readyAfterMs: 20_000 } }), '--config', config, '--ledger', ledger], out.stream, err.stream, {
      signal: interrupt.signal,
    });
    for (let i = 0; i < 300 && !/activate \(unit, current, restart, readiness\) \.\.\. /.test(err.text()); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(
      [...controlDirs()].some((entry) => !before.has(entry)),
      'a control directory exists while it runs',
    );
    interrupt.abort();
    assert.equal(await running, EXIT.interrupted);
    assert.deepEqual(leftWhenSaid, []);
  });

  for (const [signal, code] of [
    ['SIGTERM', EXIT.terminated],
    ['SIGHUP', EXIT.hangup],
  ] as const) {
    test(`${signal} ends occ-ssh as Ctrl-C does, exiting ${code} (128 + the signal's number): connections closed, no control directory left`, async () => {
      const before = controlDirs();
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--import', NETGUARD, ENTRY, 'deploy', '--revision', revisionFile(4, { fixtureGateway: { readyAfterMs: 20_000 } }), '--config', config, '--ledger', ledger],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, TMPDIR: privateTmp },
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      for (let i = 0; i < 1200 && !/activate \(unit, current, restart, readiness\) \.\.\. /.test(err); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(err, /activate \(unit, current, restart, readiness\) \.\.\. /, out);
      assert.ok(
        [...controlDirs()].some((entry) => !before.has(entry)),
        'a control directory exists while it runs',
      );
      child.kill(signal);
      assert.equal(await exited, code, err);
      assert.match(err, /occ-ssh deploy: interrupted; connections closed and temporary files removed/);
      assert.deepEqual(
        [...controlDirs()].filter((entry) => !before.has(entry)),
        [],
      );
    });
  }
});
