// Unit tests of occ-ssh argument parsing and its usage exit code.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { COMMANDS, UsageError, parseCli, parseLines, parseSince } from './args.js';
import { SEED_INSTALLATION } from '../../test/config-fixtures.js';
import { EXIT, SIGNAL_EXIT, exitFor, exitForSignal, runCli } from './main.js';

function sink() {
  let text = '';
  return { stream: new Writable({ write: (chunk: Buffer, _e, done) => ((text += chunk.toString()), done()) }), text: () => text };
}

describe('occ-ssh arguments', () => {
  test('a full deploy command parses', () => {
    assert.deepEqual(parseCli(['deploy', '--config', '/etc/i.yaml', '--revision', 'r.json', '--revision-number', '3', '--json', '--readiness-timeout', '30']), {
      command: 'deploy',
      config: '/etc/i.yaml',
      revision: 'r.json',
      revisionNumber: 3,
      readinessTimeoutMs: 30_000,
      yes: false,
      json: true,
      verbose: false,
      follow: false,
      previous: false,
    });
  });

  for (const [name, argv, message] of [
    ['no command', ['--config', 'x'], /a command is required/],
    ['unknown command', ['launch', '--config', 'x'], /unknown command "launch"/],
    ['missing config', ['status'], /--config <installation.yaml> is required/],
    ['unknown flag', ['status', '--config', 'x', '--force'], /Unknown option '--force'/],
    ['extra positional', ['status', 'now', '--config', 'x'], /unexpected argument "now"/],
    ['bad revision number', ['deploy', '--config', 'x', '--revision-number', '0'], /positive integer/],
    ['bad readiness timeout', ['deploy', '--config', 'x', '--readiness-timeout', '121'], /1 to 120/],
  ] as const) {
    test(`usage error: ${name}`, () =>
      assert.throws(
        () => parseCli([...argv], {}),
        (error: unknown) => error instanceof UsageError && message.test(error.message),
      ));
  }

  test('usage errors exit 2 and print the usage; --help exits 0', async () => {
    const err = sink();
    assert.equal(await runCli(['status'], sink().stream, err.stream, {}, {}), EXIT.usage);
    assert.match(err.text(), /^occ-ssh: --config <installation\.yaml> is required when OCC_CONFIG_PATH is not set/);
    assert.match(
      err.text(),
      /exit codes: 0 success, 2 usage, 3 permanent failure \(do not retry unchanged\),\n {2}4 retryable failure reported by a host, 5 nothing to do \(stop of a revision that was not running\),\n {2}6 not confirmed \(nothing changed\), 75 a host could not be reached \(retryable\),\n {2}129 SIGHUP, 130 SIGINT \(Ctrl-C\), 143 SIGTERM \(128 \+ the signal's number; logs --follow exits 0\)/,
    );
    const out = sink();
    assert.equal(await runCli(['--help'], out.stream, sink().stream), EXIT.ok);
    assert.match(out.text(), /^usage: occ-ssh/);
  });

  test('each command has its own help with examples', async () => {
    for (const command of COMMANDS) {
      const out = sink();
      assert.equal(await runCli([command, '--help'], out.stream, sink().stream), EXIT.ok);
      assert.match(out.text(), new RegExp(`^usage: occ-ssh ${command} --config`));
      assert.match(out.text(), /\nexamples?:\n {2}occ-ssh /);
    }
  });

  test('--json usage errors are one JSON line on stdout', async () => {
    const out = sink();
    const err = sink();
    assert.equal(await runCli(['status', '--json', '--force'], out.stream, err.stream), EXIT.usage);
    const parsed = JSON.parse(out.text()) as { ok: boolean; error: { code: string; message: string } };
    assert.equal(parsed.ok, false);
    assert.equal(parsed.error.code, 'usage');
    assert.match(parsed.error.message, /^Unknown option '--force'/);
    assert.equal(err.text(), '');
  });

  test('--version names the controller, protocol and helper digests', async () => {
    const out = sink();
    assert.equal(await runCli(['--version'], out.stream, sink().stream), EXIT.ok);
    assert.match(out.text(), /^occ-ssh \d+\.\d+\.\d+ \(protocol \d+\)\n/);
    assert.match(out.text(), /artifact sha256 [0-9a-f]{64}\nhelper bundle sha256 [0-9a-f]{64} /);
  });

  test('logs takes the Agent ID as its argument, --since as a UTC time or an age, and bounded --lines', () => {
    const parsed = parseCli(['logs', 'agent-7', '--config', 'i.yaml', '--since', '2026-01-31T12:00:00Z', '--lines', '20', '--follow']);
    assert.ok(typeof parsed === 'object' && 'command' in parsed);
    assert.equal(parsed.agentId, 'agent-7');
    assert.equal(parsed.since, Date.parse('2026-01-31T12:00:00Z') / 1000);
    assert.equal(parsed.lines, 20);
    assert.equal(parsed.follow, true);
    assert.equal(parseSince('15m', 1_000_000_000), 1_000_000 - 900);
    for (const bad of ['yesterday', '2026-01-31 12:00:00', '0m', '-5m', '@1']) assert.throws(() => parseSince(bad), UsageError, bad);
    for (const bad of ['0', '1001', '1e3', '-1']) assert.throws(() => parseLines(bad), UsageError, bad);
    assert.throws(() => parseCli(['status', '--config', 'i.yaml', '--follow']), /logs options/);
    assert.throws(() => parseCli(['logs', 'a', '--agent-id', 'b', '--config', 'i.yaml']), /given twice/);
  });

  test('plan takes the command it shows, and only one that changes a host', () => {
    const parsed = parseCli(['plan', 'deploy', '--config', 'i.yaml', '--revision', 'r.json', '--workspace', 'w']);
    assert.ok(typeof parsed === 'object' && 'command' in parsed);
    assert.equal(parsed.command, 'plan');
    assert.equal(parsed.planned, 'deploy');
    for (const bad of [['plan'], ['plan', 'status'], ['plan', 'plan']])
      assert.throws(() => parseCli([...bad, '--config', 'i.yaml']), /plan needs one of deploy, stop, retire, delete-agent, delete-namespace/);
  });

  test('exit statuses tell a permanent failure, a host that failed and a host that was not reached apart', () => {
    const e = (code: 'ownership' | 'lock-timeout' | 'transport' | 'timeout') => new ComputeError(code, code);
    assert.equal(exitFor([e('transport'), e('timeout')]), EXIT.unreachable);
    assert.equal(exitFor([e('transport'), e('lock-timeout')]), EXIT.failed);
    assert.equal(exitFor([e('lock-timeout'), e('ownership')]), EXIT.permanent);
  });

  test('OCC_CONFIG_PATH is the default for --config; --config wins; an empty one is not set', () => {
    const parsed = (argv: string[], env: NodeJS.ProcessEnv) => {
      const options = parseCli(argv, env);
      return typeof options === 'object' && 'command' in options ? options.config : undefined;
    };
    assert.equal(parsed(['status'], { OCC_CONFIG_PATH: '/etc/occ/installation.yaml' }), '/etc/occ/installation.yaml');
    assert.equal(parsed(['status', '--config', 'mine.yaml'], { OCC_CONFIG_PATH: '/etc/occ/installation.yaml' }), 'mine.yaml');
    assert.throws(() => parseCli(['status'], { OCC_CONFIG_PATH: '' }), /is required when OCC_CONFIG_PATH is not set/);
  });

  test('a signal exits 128 + its number', () => {
    assert.deepEqual(SIGNAL_EXIT, { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 });
    assert.equal(exitForSignal('SIGTERM'), 143);
    assert.equal(exitForSignal('SIGHUP'), 129);
    assert.equal(exitForSignal(new Error('aborted')), 130);
  });

  test('--json closes an interrupted command with its result line, and it exits with the signal', async () => {
    const config = `${mkdtempSync(`${tmpdir()}/occ-cli-args-`)}/installation.yaml`;
    writeFileSync(config, SEED_INSTALLATION);
    const interrupt = new AbortController();
    interrupt.abort('SIGTERM');
    const out = sink();
    assert.equal(await runCli(['status', '--json', '--config', config], out.stream, sink().stream, { signal: interrupt.signal }), EXIT.terminated);
    const lines = out.text().trimEnd().split('\n');
    assert.equal(lines.length, 1, out.text());
    const result = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.deepEqual(
      { ok: result.ok, command: result.command, error: result.error },
      { ok: false, command: 'status', error: { code: 'cancelled', message: 'interrupted by SIGTERM; connections closed' } },
    );
  });

  test('an invalid Installation is a permanent failure (exit 3) naming the key', async () => {
    const err = sink();
    assert.equal(await runCli(['status', '--config', '/nonexistent/installation.yaml'], sink().stream, err.stream), EXIT.permanent);
    assert.match(err.text(), /permanent configuration error/);
    assert.match(err.text(), /\/nonexistent\/installation\.yaml/);
  });
});
