// Real-host proof that nothing an Agent planted is removed under the host lock: a compromised gateway
// fills its state/ with empty files from inside its unit, its Agent is deleted, and a sibling's stop
// during that removal waits for none of it. A cut removal stays out of every Agent's reach and is
// finished by the next deletion, which waits for a claim another helper still holds.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, accountOf, activateArgs, call, exists, installTenantGateway, layoutOf, ok, owner, prepareArgs, type CallOutcome } from '@occ-ssh/test-support';

/** Empty files planted; CI keeps it modest. OCC_PLANTED_NAMES measures the figure by hand (1,500,000). */
const PLANTED = Number(process.env.OCC_PLANTED_NAMES ?? 200_000);
/**
 * A cut needs a removal still under way when the helper notices its closed session (the kill comes as
 * the removal begins, and a heartbeat a quarter second later), not the largest one: half the files,
 * about two seconds of removal on an idle host.
 */
const PLANTED_FOR_CUT = Math.ceil(PLANTED / 2);
const AREA = `${ROOT}/.removing`;

/** The attack, run as the Agent inside its unit at gateway start: empty files, 10,000 a directory, planted once. */
function plantingAttack(count: number): string {
  return `
const fs = require('node:fs');
const state = process.env.OPENCLAW_STATE_DIR;
if (!fs.existsSync(state + '/planted.json')) {
  const started = Date.now();
  for (let i = 0; i < ${count}; i++) {
    const dir = state + '/many-' + Math.floor(i / 10000);
    if (i % 10000 === 0) fs.mkdirSync(dir);
    fs.closeSync(fs.openSync(dir + '/' + i, 'wx'));
  }
  fs.writeFileSync(state + '/planted.json', JSON.stringify({ count: ${count}, ms: Date.now() - started }));
}
`;
}

const timingsOf = (outcome: CallOutcome) => {
  assert.ok(outcome.line?.ok, JSON.stringify(outcome.line));
  return outcome.line.timings;
};

describe('removing what an Agent planted never holds the host lock', { timeout: 30 * 60_000 }, () => {
  let host: TestHost;
  const sibling = owner('sibling', 'shared');
  const siblingRev = prepareArgs(sibling, 1);

  /** An Agent in the shared Namespace whose gateway planted `count` empty files in its state/. */
  async function plantedAgent(tag: string, count: number): Promise<{ who: AgentOwner; plantMs: number }> {
    const who = { ...owner(tag, 'shared'), namespace: sibling.namespace };
    const runtime = { openclawPath: await installTenantGateway(host, `plant-${tag}`, plantingAttack(count)) };
    const args = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', args, { runtime });
    // A large planting can outlast the readiness bound: the gateway goes on planting, and the test waits for it.
    await call(host, 'activate-revision', activateArgs(args, {}, 120_000), { runtime });
    let record = '';
    for (let i = 0; i < 1200 && !record; i += 1) {
      record = (await host.exec(['cat', `${layoutOf(who).state}/planted.json`])).stdout;
      if (!record) await sleep(500);
    }
    const planted = JSON.parse(record) as { count: number; ms: number };
    assert.equal(planted.count, count);
    return { who, plantMs: planted.ms };
  }

  /** Resolves once the Agent's directory has left its place: from here on its deletion is removing what it planted. */
  async function renamedAway(who: AgentOwner): Promise<number> {
    for (let i = 0; i < 600; i += 1) {
      if (!(await exists(host, layoutOf(who).dir))) return Date.now();
      await sleep(50);
    }
    throw new Error('the Agent directory was never renamed away');
  }

  /** Resolves once the Agent's user and its account marker are both gone. */
  async function accountGone(who: AgentOwner): Promise<void> {
    const name = accountOf(who);
    for (let i = 0; i < 600; i += 1) {
      const left = await host.exec(['sh', '-c', 'getent passwd "$1" >/dev/null || test -e "$2"', 'sh', name, `${ROOT}/accounts/${name}.json`]);
      if (left.code !== 0) return;
      await sleep(50);
    }
    throw new Error(`the account ${name} was never removed`);
  }

  before(async () => {
    host = await startTestHost({ name: 'hremove' });
    await ok(host, 'ensure-namespace', { namespace: sibling.namespace });
    await ok(host, 'prepare-revision', siblingRev);
  });
  after(() => host?.down());

  test("a sibling's stop during the removal of an Agent's planted files waits for none of it", async () => {
    const { who, plantMs } = await plantedAgent('doomed', PLANTED);
    await ok(host, 'activate-revision', activateArgs(siblingRev));
    const deletion = call(host, 'delete-agent', { owner: who });
    const renamedAt = await renamedAway(who);
    const stop = await call(host, 'stop-revision', { owner: sibling, revision: siblingRev.revision });
    const stopped = timingsOf(stop);
    const deleted = timingsOf(await deletion);
    const removalMs = Date.now() - renamedAt;
    // The same stop on the host with nothing else running, for comparison.
    await ok(host, 'activate-revision', activateArgs(siblingRev));
    const idle = timingsOf(await call(host, 'stop-revision', { owner: sibling, revision: siblingRev.revision }));
    process.stderr.write(
      `[tenant-removal] ${PLANTED} files planted in ${plantMs} ms; delete-agent ${deleted.totalMs} ms, lock held ${deleted.lockHoldMs} ms; ` +
        `removal seen for ${removalMs} ms; sibling stop ${stop.ms} ms (lock wait ${stopped.lockWaitMs} ms, held ${stopped.lockHoldMs} ms); idle stop ${idle.totalMs} ms\n`,
    );
    // Security: the sibling's stop does not queue behind the removal; neither does the deletion's lock hold cover it.
    assert.ok((stopped.lockWaitMs ?? Infinity) < removalMs / 4, `the sibling waited ${stopped.lockWaitMs} ms for the lock during a ${removalMs} ms removal`);
    assert.ok((deleted.lockHoldMs ?? Infinity) < deleted.totalMs / 2, `the deletion held the lock ${deleted.lockHoldMs} of its ${deleted.totalMs} ms`);
    assert.equal(await exists(host, layoutOf(who).dir), false);
    assert.deepEqual((await host.run(['ls', '-A', AREA])).trim(), '', 'the removal area is empty');
    assert.equal((await host.exec(['getent', 'passwd', accountOf(who)])).code, 2);
  });

  test('a removal cut short stays out of every Agent reach, keeps the lock free, and the next deletion waits for its claim and finishes it', async () => {
    const { who } = await plantedAgent('cut', PLANTED_FOR_CUT);
    let sshPid = 0;
    const deletion = call(host, 'delete-agent', { owner: who }, { onSpawn: (pid) => (sshPid = pid) });
    await renamedAway(who);
    // The cut comes once the account is gone too (userdel and its marker, the last changes under the
    // lock, which a loaded host can stretch past a second): the tree's removal is then under way.
    await accountGone(who);
    process.kill(sshPid, 'SIGKILL');
    const killed = await deletion;
    assert.ok(killed.line === undefined || !killed.line.ok, killed.stdout.slice(-300));
    // The helper sees its session close within a heartbeat: the lock is free and the cut tree waits in the area.
    await host.run(['flock', '--timeout', '10', `${ROOT}/.compute-lock`, 'true']);
    await sleep(2000);
    const left = (await host.run(['ls', '-A', AREA])).trim().split('\n');
    assert.equal(left.length, 2, `a tree and its marker: ${left.join(' ')}`);
    assert.equal((await host.run(['stat', '-c', '%U:%G %a', AREA])).trim(), 'root:root 700');
    // Its account is already gone; a sibling's account cannot even list the area.
    assert.equal((await host.exec(['getent', 'passwd', accountOf(who)])).code, 2);
    const uid = (await host.run(['id', '-u', accountOf(sibling)])).trim();
    const peek = await host.exec(['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'ls', AREA]);
    assert.notEqual(peek.code, 0);
    assert.match(peek.stderr, /Permission denied/);
    // Another holder of the removal's claim (as a cut helper still ending): the retry waits for it, then finishes the removal.
    const marker = `${AREA}/${left.find((name) => name.endsWith('.json'))!}`;
    const holder = host.exec(['flock', marker, 'sleep', '3']);
    while ((await host.exec(['flock', '--nonblock', marker, 'true'])).code === 0) await sleep(50);
    const retried = Date.now();
    const resumed = await ok(host, 'delete-agent', { owner: who });
    const retryMs = Date.now() - retried;
    assert.equal((await holder).code, 0);
    process.stderr.write(`[tenant-removal] the retry under another holder's claim answered in ${retryMs} ms\n`);
    assert.deepEqual(resumed, { agentExisted: false, accountRemoved: false, unitRemoved: false, portFreed: null });
    assert.deepEqual((await host.run(['ls', '-A', AREA])).trim(), '', 'the next deletion finished it');
  });
});
