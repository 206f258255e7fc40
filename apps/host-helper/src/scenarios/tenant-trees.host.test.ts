// Real-host proof that trees a compromised gateway planted in its own home/ and state/ never block or
// break the deletion of its Namespace: a chain thousands of levels deep, hundreds of thousands of
// entries in one directory, a 000-mode subtree and links pointing outside, planted by the gateway itself.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { deletingNamespacePath, namespaceLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import {
  ROOT,
  accountOf,
  activateArgs,
  call,
  exists,
  helperRunning,
  installTenantGateway,
  layoutOf,
  ok,
  owner,
  prepareArgs,
  sendTimed,
  type CallOutcome,
  type RemoteHost,
} from '@occ-ssh/test-support';

const DEPTH = 5000;
/** Entries of the wide directory: hard links, so planting stays quick; each is one directory entry rm must unlink. */
const WIDE = 600_000;
/** A cut 2 s into the removal needs a tree that outlasts it, not the largest one: a third, about 7 s of removal on an idle host. */
const WIDE_FOR_CUT = WIDE / 3;
const NODE20 = '/opt/node20/bin/node';
const OUTSIDE = '/opt/occ-outside';
const AREA = `${ROOT}/.removing`;

/** The attack, run as the Agent inside its unit at gateway start; it plants once, then records what it planted. */
function plantingAttack(depth: number, wide: number): string {
  return `
const fs = require('node:fs');
const home = process.env.HOME;
const state = process.env.OPENCLAW_STATE_DIR;
if (!fs.existsSync(state + '/planted.json')) {
  const started = Date.now();
  fs.mkdirSync(home + '/chain');
  process.chdir(home + '/chain');
  for (let i = 0; i < ${depth}; i++) { fs.mkdirSync('d'); process.chdir('d'); }
  fs.writeFileSync('leaf', 'deep');
  process.chdir(home);
  fs.mkdirSync(state + '/wide');
  for (let i = 0; i < ${wide}; i++) {
    const base = state + '/wide/base-' + Math.floor(i / 60000);
    if (i % 60000 === 0) fs.writeFileSync(base, 'x');
    else fs.linkSync(base, state + '/wide/' + i);
  }
  fs.mkdirSync(home + '/locked/inner', { recursive: true });
  fs.writeFileSync(home + '/locked/inner/file', 'x');
  fs.symlinkSync(${JSON.stringify(OUTSIDE)}, home + '/locked/inner/out');
  fs.chmodSync(home + '/locked/inner', 0);
  fs.chmodSync(home + '/locked', 0);
  fs.symlinkSync(${JSON.stringify(`${OUTSIDE}/keep`)}, home + '/out-file');
  fs.symlinkSync(${JSON.stringify(`${OUTSIDE}/dir`)}, home + '/out-dir');
  fs.symlinkSync('/', state + '/out-root');
  fs.writeFileSync(state + '/planted.json', JSON.stringify({ depth: ${depth}, wide: ${wide}, ms: Date.now() - started }));
}
process.chdir(home);
`;
}

/** delete-namespace with the longest wait between two lines the caller saw. */
async function timedDelete(host: RemoteHost, who: AgentOwner): Promise<CallOutcome & { longestSilenceMs: number }> {
  const arrivals = [Date.now()];
  const outcome = await call(host, 'delete-namespace', { namespace: who.namespace }, { send: sendTimed(host, arrivals) });
  const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!);
  return { ...outcome, longestSilenceMs: Math.max(...gaps) };
}

describe('trees a compromised gateway planted never block or break deletion', { timeout: 30 * 60_000 }, () => {
  let host: TestHost;
  /** The same host, with the helper run by the Node 20 binary copied in. */
  const node20 = (): RemoteHost => ({
    address: host.address,
    port: host.port,
    user: host.user,
    identityFile: host.identityFile,
    knownHostsFile: host.knownHostsFile,
    fixtureGatewayPath: host.fixtureGatewayPath,
    nodePath: NODE20,
    exec: (argv, opts) => host.exec(argv, opts),
    run: (argv, opts) => host.run(argv, opts),
  });

  /** A Namespace whose one Agent's gateway planted the trees; returns how long planting took there. */
  async function plantedNamespace(tag: string, depth: number, wide: number): Promise<{ who: AgentOwner; plantMs: number }> {
    const who = owner(tag, 'doomed');
    const gateway = await installTenantGateway(host, `tree-${tag}`, plantingAttack(depth, wide));
    const runtime = { openclawPath: gateway };
    await ok(host, 'ensure-namespace', { namespace: who.namespace }, { runtime });
    const args = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', args, { runtime });
    await ok(host, 'activate-revision', activateArgs(args, {}, 120_000), { runtime });
    const planted = JSON.parse(await host.run(['cat', `${layoutOf(who).state}/planted.json`])) as { depth: number; wide: number; ms: number };
    assert.deepEqual({ depth: planted.depth, wide: planted.wide }, { depth, wide });
    return { who, plantMs: planted.ms };
  }

  const outsideIntact = async () => assert.equal(await host.run(['cat', `${OUTSIDE}/keep`, `${OUTSIDE}/dir/file`]), 'keep\ninside\n');

  async function assertGone(who: AgentOwner): Promise<void> {
    assert.equal(await exists(host, namespaceLayout(ROOT, who.namespace.id).dir), false);
    assert.equal(await exists(host, deletingNamespacePath(ROOT, who.namespace.id)), false);
    assert.equal((await host.run(['ls', '-A', AREA])).trim(), '', 'nothing left in the removal area');
    assert.equal((await host.exec(['getent', 'passwd', accountOf(who)])).code, 2);
    await outsideIntact();
  }

  before(async () => {
    host = await startTestHost({ name: 'htree' });
    await host.run(['sh', '-c', `mkdir -p ${OUTSIDE}/dir && printf 'keep\\n' > ${OUTSIDE}/keep && printf 'inside\\n' > ${OUTSIDE}/dir/file`]);
    await host.run(['sh', '-c', `mkdir -p /opt/node20/bin && cat > ${NODE20}.tmp && chmod 0755 ${NODE20}.tmp && mv ${NODE20}.tmp ${NODE20}`], { input: readFileSync(process.execPath) });
    assert.match(await host.run([NODE20, '--version']), /^v20\./);
  });
  after(() => host?.down());

  test('deleting a Namespace whose gateway planted huge trees succeeds, with heartbeats all along and links left alone', async () => {
    const { who, plantMs } = await plantedNamespace('huge', DEPTH, WIDE);
    const outcome = await timedDelete(host, who);
    assert.equal(outcome.line?.ok, true, outcome.stdout.slice(-500));
    const seconds = outcome.ms / 1000;
    process.stderr.write(
      `[tenant-trees] planted ${DEPTH} deep + ${WIDE} entries in ${plantMs} ms; deleted in ${outcome.ms} ms with ${outcome.heartbeats.length} heartbeats, longest silence ${outcome.longestSilenceMs} ms\n`,
    );
    // Security: a removal that held the event loop would leave the caller without a line for its whole length.
    assert.ok(outcome.longestSilenceMs < 5000, `no heartbeat for ${outcome.longestSilenceMs} ms`);
    assert.ok(outcome.heartbeats.length >= seconds / 2, `${outcome.heartbeats.length} heartbeats in ${seconds} s`);
    await assertGone(who);
  });

  test('on Node 20, whose rmSync overflows its stack on a deep chain, the helper still deletes it', async () => {
    const { who } = await plantedNamespace('node20', DEPTH, 10);
    const outcome = await call(node20(), 'delete-namespace', { namespace: who.namespace });
    assert.equal(outcome.line?.ok, true, outcome.stdout.slice(-500));
    await assertGone(who);
  });

  test('a deletion cut short mid-removal stops at once, leaves the tree in the removal area, and the next call resumes and completes it', async () => {
    const { who } = await plantedNamespace('cut', DEPTH, WIDE_FOR_CUT);
    let sshPid = 0;
    const started = Date.now();
    const deletion = call(host, 'delete-namespace', { namespace: who.namespace }, { onSpawn: (pid) => (sshPid = pid) });
    // Cut once the tree has left its place (the units stopped, the tree staged), 2 s into its removal.
    while (await exists(host, namespaceLayout(ROOT, who.namespace.id).dir)) assert.ok(Date.now() - started < 60_000, 'the tree was never renamed away');
    await sleep(2000);
    process.kill(sshPid, 'SIGKILL');
    const killed = { ...(await deletion), killedAtMs: Date.now() - started };
    assert.ok(killed.line === undefined || (!killed.line.ok && ['cancelled', 'timeout'].includes(killed.line.error.code)), killed.stdout.slice(-300));
    // The helper sees its session close within a heartbeat and stops its removal: the lock is free long before the tree is gone.
    const freed = Date.now();
    await host.run(['flock', '--timeout', '10', `${ROOT}/.compute-lock`, 'true']);
    const freedMs = Date.now() - freed;
    assert.notEqual((await host.run(['ls', '-A', AREA])).trim(), '', 'the removal was cut short, not finished');
    // The account went under the lock, before the removal began; its files wait where no account reaches.
    assert.equal((await host.exec(['getent', 'passwd', accountOf(who)])).code, 2);
    // The cut helper may still be ending its removal child (about a second): the retry waits for its claim, then finishes.
    const cutHelperRunning = await helperRunning(host);
    const resumed = await ok(host, 'delete-namespace', { namespace: who.namespace });
    process.stderr.write(
      `[tenant-trees] cut at ${killed.killedAtMs} ms; lock free ${freedMs} ms later; cut helper still running at the retry: ${cutHelperRunning}; resumed: ${JSON.stringify(resumed)}\n`,
    );
    assert.deepEqual(resumed, { treeExisted: false, agentsRemoved: 0, accountsRemoved: [] });
    await assertGone(who);
  });
});
