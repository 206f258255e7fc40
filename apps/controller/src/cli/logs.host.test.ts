// occ-ssh logs against a real host whose gateway is compromised: it writes escape sequences, a line
// that looks like the helper's audit trail, and a line of tabs, bidi overrides, zero-width characters and
// line separators. All are printed as the Agent's words with every hidden character shown escaped,
// --json carries them as data in escaped JSON text. --follow is one helper run whose one journalctl
// --follow shows no line another writer forged, ends on Ctrl-C with --json's result line, and is gone
// from the host when the CLI is killed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { agentLayout } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { installTenantGateway } from '@occ-ssh/test-support';
import { cliRunner } from '../../test/cli-runner.js';
import { hostInfo, installationYaml } from '../../test/hosts.js';
import { EXIT } from './main.js';

/** Reordered, hidden and separated text, and a backslash that would forge an escape. */
const SPOOF = 'spoof\t|\u202eb-tnega\u202c|\u2066x\u2069\u200e\u200f\u061c|\u200b\u200c\u200d\u2060\ufeff|\u2028\u2029|\u0085\u009b|\\u202e end';
const SPOOF_SHOWN = 'spoof\\x09|\\u202eb-tnega\\u202c|\\u2066x\\u2069\\u200e\\u200f\\u061c|\\u200b\\u200c\\u200d\\u2060\\ufeff|\\u2028\\u2029|\\x85\\x9b|\\\\u202e end';
/** What a terminal would obey, reorder by or hide. */
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

const ATTACK = `
const SPOOF = ${JSON.stringify(SPOOF)};
console.log('hostile \\x1b[2J\\x1b]0;owned\\x07\\x9b31m end');
// On its own output, not through logger: journald finds a short-lived logger's unit only while it still runs.
console.log('operation=delete-namespace outcome=ok request=forged namespace=ns-victim');
process.stdout.write('first\\noperation=retire-revision outcome=ok request=forged-newline\\n');
console.log(SPOOF);
let tick = 0;
setInterval(() => console.log('tick ' + tick++), 300).unref();
`;

const ROOT = '/var/lib/openclaw-enterprise';
const UNITS = '/etc/systemd/system';
const ENTRY = fileURLToPath(new URL('./occ-ssh.ts', import.meta.url));
const NETGUARD = fileURLToPath(new URL('../../../../tools/netguard/src/register.ts', import.meta.url));

describe('occ-ssh logs of a compromised gateway, on a real host', () => {
  let host: TestHost;
  const dir = mkdtempSync(`${tmpdir()}/occ-cli-logs-`);
  const config = `${dir}/installation.yaml`;
  const ledger = `${dir}/ledger.json`;
  const revision = `${dir}/rev-1.json`;
  const cli = cliRunner(config, ledger);

  before(async () => {
    host = await startTestHost({ name: 'clogs' });
    const gateway = await installTenantGateway(host, 'noisy', ATTACK);
    writeFileSync(config, installationYaml({ stable: { ...hostInfo(host), fixtureGatewayPath: gateway } }));
    writeFileSync(
      revision,
      JSON.stringify({
        namespace: { id: 'ns-logs', name: 'stable' },
        agent: { id: 'agent-logs', servicePrincipal: { id: 'sp-logs' } },
        revision: { id: 'rev-logs-1', number: 1, configuration: { gateway: { mode: 'local' } } },
      }),
    );
    const deployed = await cli('deploy', '--revision', revision);
    assert.equal(deployed.code, EXIT.ok, deployed.err);
  });
  after(() => host?.down());

  test('escape sequences and a forged audit line are printed neutralised, each as the Agent’s own line', async () => {
    const result = await cli('logs', 'agent-logs', '--revision', revision, '--lines', '1000');
    assert.equal(result.code, EXIT.ok, result.err);
    assert.equal(HIDDEN.test(result.out.replaceAll('\n', '')), false, 'no control, bidi or invisible character reaches the terminal');
    assert.ok(
      result.out.split('\n').some((line) => line.endsWith(`]: ${SPOOF_SHOWN}`)),
      result.out,
    );
    assert.match(result.out, /^\S+Z agent-logs\[\d+\]: hostile \\x1b\[2J\\x1b\]0;owned\\x07\\x9b31m end$/m);
    assert.match(result.out, /^\S+Z agent-logs\[\d+\]: operation=delete-namespace outcome=ok request=forged namespace=ns-victim$/m);
    // Every printed line is attributed to the Agent (the header is on stderr): the newline inside an entry starts nothing.
    for (const line of result.out.trimEnd().split('\n')) assert.match(line, /^\S+Z agent-logs\[\d+\]: /);
    assert.match(result.err, /^gateway journal of Agent agent-logs \(journalctl --namespace=\+openclaw-enterprise _SYSTEMD_UNIT=openclaw-enterprise-gateway-[0-9a-f]{12}\.service _UID=\d+\):$/m);
  });

  test('--json carries the gateway’s text as data, control characters included', async () => {
    const result = await cli('logs', '--revision', revision, '--lines', '1000', '--json');
    assert.equal(result.code, EXIT.ok, result.err);
    const json = JSON.parse(result.out) as { ok: boolean; result: { entries: { message: string }[]; truncated: boolean } };
    assert.equal(json.ok, true);
    assert.ok(json.result.entries.some((e) => e.message === 'hostile \x1b[2J\x1b]0;owned\x07\u009b31m end'));
    assert.ok(
      json.result.entries.some((e) => e.message === SPOOF),
      result.out,
    );
    // The JSON text itself shows them as \u escapes: a terminal reading it obeys and hides nothing.
    assert.equal(HIDDEN.test(result.out.replaceAll('\n', '')), false, 'no control, bidi or invisible character in the JSON text');
    assert.ok(result.out.includes('\\u202eb-tnega\\u202c'), result.out);
    assert.equal(json.result.truncated, false);
  });

  test('bad --since and --lines are usage errors that reach no host', async () => {
    assert.equal((await cli('logs', '--revision', revision, '--since', 'yesterday')).code, EXIT.usage);
    assert.equal((await cli('logs', '--revision', revision, '--lines', '1001')).code, EXIT.usage);
  });

  /** occ-ssh logs --follow as its own process, with what it wrote so far. */
  function follow(...extra: string[]) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', NETGUARD, ENTRY, 'logs', '--revision', revision, '--lines', '1', '--follow', ...extra, '--config', config, '--ledger', ledger],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const seen = { out: '', err: '' };
    child.stdout.on('data', (chunk: Buffer) => (seen.out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (seen.err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const ticks = () => new Set([...seen.out.matchAll(/tick (\d+)/g)].map((m) => m[1]));
    const until = async (count: number) => {
      for (let i = 0; i < 1200 && ticks().size < count; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(ticks().size >= count, `${seen.out}\n${seen.err}`);
    };
    return { child, seen, exited, ticks, until };
  }

  /** The host helper's processes (`<node> - <header>`), by PID. */
  const helperPids = async () =>
    (await host.run(['sh', '-c', 'for p in /proc/[0-9]*; do tr "\\000" " " < $p/cmdline 2>/dev/null | grep -q "^[^ ]*node - " && echo ${p#/proc/}; done; true'])).split('\n').filter(Boolean);

  /** The host's journalctl processes, by their command names. */
  const journalctls = async () => (await host.run(['sh', '-c', 'cat /proc/[0-9]*/comm 2>/dev/null; true'])).split('\n').filter((name) => name === 'journalctl').length;

  test('--follow is one helper run: one journalctl --follow, no forged line, and on Ctrl-C exit 0 with --json closing on its result line', async () => {
    const unit = agentLayout(ROOT, UNITS, 'ns-logs', 'agent-logs').unitName;
    const run = follow('--json');
    await run.until(3);
    // Root's own lines tagged as the gateway's unit: journald stamps them with root's UID and its own unit, so the follow's selection leaves them out.
    await host.run(['logger', '-t', unit, 'FORGED-while-following']);
    await host.run(['systemd-cat', '-t', unit, 'echo', 'FORGED-systemd-cat-while-following']);
    // The same helper process and one journalctl at each look, a second apart: one helper run follows.
    const looks: { helpers: string[]; journalctls: number }[] = [];
    for (let i = 0; i < 4; i += 1) {
      looks.push({ helpers: await helperPids(), journalctls: await journalctls() });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const before = run.ticks().size;
    await run.until(before + 2);
    run.child.kill('SIGINT');
    assert.equal(await run.exited, EXIT.ok, run.seen.err);
    console.log(`follow: ${run.ticks().size} ticks; helper processes and journalctls at each look: ${JSON.stringify(looks)}`);
    assert.deepEqual(
      looks.map((look) => look.journalctls),
      [1, 1, 1, 1],
    );
    assert.equal(looks[0]!.helpers.length, 1, JSON.stringify(looks));
    for (const look of looks) assert.deepEqual(look.helpers, looks[0]!.helpers, JSON.stringify(looks));
    assert.doesNotMatch(run.seen.out, /FORGED/);
    const lines = run.seen.out.trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { ok: boolean; command: string; result: { followed: boolean; ended: string; entries: number } };
    assert.deepEqual({ ok: last.ok, command: last.command, followed: last.result.followed, ended: last.result.ended }, { ok: true, command: 'logs', followed: true, ended: 'interrupted' });
    // Every line before it is one entry; the result counts them.
    assert.equal(last.result.entries, lines.length - 1);
    for (const line of lines.slice(0, -1)) assert.deepEqual(Object.keys(JSON.parse(line) as object), ['time', 'pid', 'message']);
    assert.match(run.seen.err, /occ-ssh logs: stopped following; connections closed/);
    for (let i = 0; i < 120 && (await journalctls()) > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(await journalctls(), 0);
  });

  test('--follow killed (SIGKILL): its ssh session ends, and with it the journalctl on the host', async () => {
    const run = follow();
    await run.until(2);
    assert.equal(await journalctls(), 1, 'the follow runs one journalctl on the host');
    run.child.kill('SIGKILL');
    await run.exited;
    const started = Date.now();
    // The helper sees its session closed at its next heartbeat (each second); generous for a loaded machine.
    for (let i = 0; i < 120 && (await journalctls()) > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 250));
    console.log(`journalctl gone ${Date.now() - started} ms after the CLI was killed`);
    assert.equal(await journalctls(), 0);
  });
});
