// occ-ssh logs against a real host whose gateway is compromised: it writes escape sequences and a line
// that looks like the helper's audit trail. Both are printed as the Agent's words with every control
// character shown, --json carries them as data, and --follow stops on Ctrl-C leaving no journalctl behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { installTenantGateway } from '@occ-ssh/test-support';
import { cliRunner } from '../../test/cli-runner.js';
import { hostInfo, installationYaml } from '../../test/hosts.js';
import { EXIT } from './main.js';

const ATTACK = `
console.log('hostile \\x1b[2J\\x1b]0;owned\\x07\\x9b31m end');
// On its own output, not through logger: journald finds a short-lived logger's unit only while it still runs.
console.log('operation=delete-namespace outcome=ok request=forged namespace=ns-victim');
process.stdout.write('first\\noperation=retire-revision outcome=ok request=forged-newline\\n');
let tick = 0;
setInterval(() => console.log('tick ' + tick++), 300).unref();
`;

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
    assert.equal(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(result.out), false, 'no control character reaches the terminal');
    assert.match(result.out, /^\S+Z agent-logs\[\d+\]: hostile \\x1b\[2J\\x1b\]0;owned\\x07\\x9b31m end$/m);
    assert.match(result.out, /^\S+Z agent-logs\[\d+\]: operation=delete-namespace outcome=ok request=forged namespace=ns-victim$/m);
    // Every printed line is either the header or attributed to the Agent: the newline inside an entry starts nothing.
    for (const line of result.out.trimEnd().split('\n').slice(1)) assert.match(line, /^\S+Z agent-logs\[\d+\]: /);
    assert.match(result.out, /^gateway journal of Agent agent-logs \(journalctl --namespace=\+openclaw-enterprise _SYSTEMD_UNIT=openclaw-enterprise-gateway-[0-9a-f]{12}\.service _UID=\d+\):$/m);
  });

  test('--json carries the gateway’s text as data, control characters included', async () => {
    const result = await cli('logs', '--revision', revision, '--lines', '1000', '--json');
    assert.equal(result.code, EXIT.ok, result.err);
    const json = JSON.parse(result.out) as { ok: boolean; result: { entries: { message: string }[]; truncated: boolean } };
    assert.equal(json.ok, true);
    assert.ok(json.result.entries.some((e) => e.message === 'hostile \x1b[2J\x1b]0;owned\x07\u009b31m end'));
    assert.equal(json.result.truncated, false);
  });

  test('bad --since and --lines are usage errors that reach no host', async () => {
    assert.equal((await cli('logs', '--revision', revision, '--since', 'yesterday')).code, EXIT.usage);
    assert.equal((await cli('logs', '--revision', revision, '--lines', '1001')).code, EXIT.usage);
  });

  test('--follow prints new entries until Ctrl-C, then exits 0 and no journalctl is left on the host', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', NETGUARD, ENTRY, 'logs', '--revision', revision, '--lines', '1', '--follow', '--config', config, '--ledger', ledger], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const ticks = () => new Set([...out.matchAll(/agent-logs\[\d+\]: tick (\d+)$/gm)].map((m) => m[1]));
    // More ticks than the one line asked for: they arrived while following.
    for (let i = 0; i < 1200 && ticks().size < 4; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(ticks().size >= 4, `${out}\n${err}`);
    child.kill('SIGINT');
    assert.equal(await exited, EXIT.ok, err);
    assert.match(err, /occ-ssh logs: stopped following; connections closed/);
    const commands = await host.run(['sh', '-c', 'cat /proc/[0-9]*/comm 2>/dev/null; true']);
    assert.equal(commands.split('\n').includes('journalctl'), false, commands);
  });
});
