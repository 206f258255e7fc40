// The demo deploy: boot a local test host, deploy a real OpenClaw gateway with occ-ssh, cut over, tear down.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { collect, succeeded } from '@occ-ssh/ssh-client';
import { testHostInstallationYaml, type InstallationHost } from '@occ-ssh/test-support';

const workspace = fileURLToPath(new URL('../../../', import.meta.url));
const keep = parseArgs({ options: { keep: { type: 'boolean', default: false } } }).values.keep;
const HOST = 'demo';
const dir = `${process.env.OCC_DEMO_DIR ?? '/var/tmp/occ-ssh-demo'}`;
const started = Date.now();

/** Runs a step's command, its output shown as it comes (stdout only when `echo`); resolves with stdout on exit 0. */
async function run(command: string, args: string[], echo = true): Promise<string> {
  const r = await collect(command, args, {
    cwd: workspace,
    // Booting a host or deploying a real gateway takes minutes, not this long.
    timeoutMs: 30 * 60_000,
    stopOnOverflow: false,
    onStderr: (chunk) => process.stderr.write(chunk),
    ...(echo ? { onStdout: (chunk: Buffer) => process.stdout.write(chunk) } : {}),
  });
  if (!succeeded(r)) throw new Error(`${command} ${args.join(' ')} exited ${r.exitCode ?? r.signal ?? r.spawnError}`);
  return r.stdout;
}

async function step<T>(title: string, action: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  console.log(`\n== ${title}`);
  const value = await action();
  console.log(`== ${title}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return value;
}

const occ = (...args: string[]) => run(process.execPath, [...process.execArgv, 'apps/controller/bin/occ-ssh.js', ...args, '--config', `${dir}/installation.yaml`, '--ledger', `${dir}/ledger.json`]);

function revisionFile(number: number, configuration: Record<string, unknown>): string {
  const path = `${dir}/revision-${number}.json`;
  const body = {
    namespace: { id: 'ns-demo-0001', name: HOST },
    agent: { id: 'agent-demo-0001', servicePrincipalId: 'sp-demo-0001' },
    revision: { id: `rev-demo-000${number}`, revision: number, harness: { id: 'openclaw', version: 'host', mode: 'embedded' }, harnessAuth: { method: 'runtime' }, configuration },
  };
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`);
  return path;
}

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  await step('build the test host image (cached after the first run)', () => run('npm', ['run', '-s', 'testhost', '--', 'build']));
  await run('npm', ['run', '-s', 'testhost', '--', 'down', HOST], false).catch(() => undefined);
  const host = JSON.parse(
    await step(`boot test host "${HOST}" (systemd + sshd in its own network namespace)`, () => run('npm', ['run', '-s', 'testhost', '--', 'up', HOST], false)),
  ) as Required<InstallationHost>;
  console.log(`   ${host.address}:${host.port}, node ${host.nodePath}, openclaw ${host.openclawPath}`);
  writeFileSync(`${dir}/installation.yaml`, testHostInstallationYaml({ [HOST]: host }, { realOpenClaw: true }));
  const rev1 = revisionFile(1, { gateway: { mode: 'local', bind: 'loopback' } });
  const rev2 = revisionFile(2, { gateway: { mode: 'local', bind: 'loopback' }, logging: { consoleStyle: 'json' } });
  await step('occ-ssh preflight', () => occ('preflight'));
  await step('occ-ssh deploy revision 1 (real OpenClaw gateway)', () => occ('deploy', '--revision', rev1));
  await step('occ-ssh status', () => occ('status'));
  await step('occ-ssh deploy revision 2 (cutover, then retire revision 1)', () => occ('deploy', '--revision', rev2));
  await step('occ-ssh status after the cutover', () => occ('status'));
  if (keep) {
    console.log(`\nThe host stays up. Reach it with:
  ssh -i ${host.identityFile} -o UserKnownHostsFile=${host.knownHostsFile} -o StrictHostKeyChecking=yes root@${host.address}
  then: curl -s http://127.0.0.1:18800/readyz ; journalctl --namespace=+openclaw-enterprise -u 'openclaw-enterprise-gateway-*'
Tear it down with: npm run occ-ssh -- delete-namespace --config ${dir}/installation.yaml --ledger ${dir}/ledger.json --revision ${rev2} --yes && npm run testhost -- down ${HOST}`);
  } else {
    await step('occ-ssh delete-namespace', () => occ('delete-namespace', '--revision', rev2, '--yes'));
    await step('tear down the test host', () => run('npm', ['run', '-s', 'testhost', '--', 'down', HOST]));
  }
  console.log(`\ndemo finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch(async (error: unknown) => {
  console.error(`demo failed: ${(error as Error).message}`);
  if (!keep) await run('npm', ['run', '-s', 'testhost', '--', 'down', HOST], false).catch(() => undefined);
  process.exitCode = 1;
});
