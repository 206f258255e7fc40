// Real-host proof of delete-agent: everything of one Agent is verified first, then its unit, directory,
// port and account go, while its sibling keeps serving; a compromised gateway's planted links and
// huge trees neither redirect nor stall the removal; absence is success; a cut removal resumes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deletingAgentPath } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, accountOf, activateArgs, call, exists, fails, installTenantGateway, layoutOf, mainPid, ok, owner, prepareArgs, sendTimed } from '@occ-ssh/test-support';

const DEPTH = 5000;
/** Hard links: quick to plant, and each one a directory entry the removal must unlink. */
const WIDE = 200_000;
const OUTSIDE = '/opt/occ-outside';
const ENTRY = `-printf '%p %u %g %m %s %l\\n'`;
/**
 * A fingerprint of the tree, the users and the groups. The planted trees count by their top directory
 * only (its mode, owner and size): the refusals never reach into them, and six walks of their 205,000
 * names and 5,000 levels cost more than the rest of this file.
 */
const TREE = `find ${ROOT} ${UNIT_DIR} \\( -name chain -o -name wide \\) ${ENTRY} -prune -o ${ENTRY} 2>/dev/null | sort | sha256sum; getent passwd | sha256sum; getent group | sha256sum`;
const NOTHING = { agentExisted: false, accountRemoved: false, unitRemoved: false, portFreed: null };

/** Run as the doomed Agent inside its unit at gateway start: links at its sibling's, root's and outside files, and huge trees. */
function plantingAttack(sibling: { state: string }): string {
  return `
const fs = require('node:fs');
const home = process.env.HOME;
const state = process.env.OPENCLAW_STATE_DIR;
if (!fs.existsSync(state + '/planted.json')) {
  fs.mkdirSync(home + '/chain');
  process.chdir(home + '/chain');
  for (let i = 0; i < ${DEPTH}; i++) { fs.mkdirSync('d'); process.chdir('d'); }
  process.chdir(home);
  fs.mkdirSync(state + '/wide');
  for (let i = 0; i < ${WIDE}; i++) {
    // A file takes at most 65,000 links on ext4: a new base every 60,000.
    const base = state + '/wide/base-' + Math.floor(i / 60000);
    if (i % 60000 === 0) fs.writeFileSync(base, 'x');
    else fs.linkSync(base, state + '/wide/' + i);
  }
  fs.mkdirSync(home + '/locked/inner', { recursive: true });
  fs.symlinkSync(${JSON.stringify(OUTSIDE)}, home + '/locked/inner/out');
  fs.chmodSync(home + '/locked/inner', 0);
  fs.chmodSync(home + '/locked', 0);
  fs.symlinkSync(${JSON.stringify(`${sibling.state}/keep`)}, home + '/sibling-file');
  fs.symlinkSync(${JSON.stringify(sibling.state)}, state + '/sibling-dir');
  fs.symlinkSync('/etc/hostname', home + '/root-file');
  fs.symlinkSync('/', state + '/root-dir');
  fs.symlinkSync(${JSON.stringify(`${OUTSIDE}/dir`)}, home + '/out-dir');
  fs.writeFileSync(state + '/planted.json', '{}');
}
process.chdir(home);
`;
}

describe('delete-agent on a real host', { timeout: 20 * 60_000 }, () => {
  let host: TestHost;
  const doomed = owner('gone', 'agents');
  const sibling = { ...owner('kept', 'agents'), namespace: doomed.namespace };
  const squatted = { ...owner('squat', 'agents'), namespace: doomed.namespace };
  const mismatched = { ...owner('mismatch', 'agents'), namespace: doomed.namespace };
  let gateway: string;
  let siblingPort: number;
  const tree = () => host.run(['sh', '-c', TREE]);
  const readyz = async (port: number) => (await host.exec(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.1:${port}/readyz`])).stdout;
  const isActive = async (unit: string) => (await host.exec(['systemctl', 'is-active', unit])).stdout.trim();
  const siblingKeep = () => host.run(['stat', '-c', '%U %a %s', `${layoutOf(sibling).state}/keep`]);

  before(async () => {
    host = await startTestHost({ name: 'hdelag' });
    await host.run(['sh', '-c', `mkdir -p ${OUTSIDE}/dir && printf 'keep\\n' > ${OUTSIDE}/keep && printf 'inside\\n' > ${OUTSIDE}/dir/file`]);
    await ok(host, 'ensure-namespace', { namespace: doomed.namespace });
    gateway = await installTenantGateway(host, 'delete-agent', plantingAttack(layoutOf(sibling)));
    const args = prepareArgs(doomed, 1);
    await ok(host, 'prepare-revision', args, { runtime: { openclawPath: gateway } });
    await ok(host, 'activate-revision', activateArgs(args, {}, 120_000), { runtime: { openclawPath: gateway } });
    assert.equal(await exists(host, `${layoutOf(doomed).state}/planted.json`), true, 'the attack ran inside the unit');
    const kept = prepareArgs(sibling, 1);
    siblingPort = (await ok(host, 'prepare-revision', kept)).port;
    await ok(host, 'activate-revision', activateArgs(kept));
    await ok(host, 'prepare-revision', prepareArgs(mismatched, 1));
    await host.run(['setpriv', `--reuid=${accountOf(sibling)}`, `--regid=${accountOf(sibling)}`, '--clear-groups', '--', 'sh', '-c', 'printf keep > "$1/keep"', 'sh', layoutOf(sibling).state]);
  });
  after(() => host?.down());

  test('a foreign or conflicting Namespace, Agent, unit or account is refused permanently with nothing changed', async () => {
    assert.equal(await isActive(layoutOf(doomed).unitName), 'active');
    const before = await tree();
    const foreignNamespace = { ...doomed, namespace: { ...doomed.namespace, name: 'other' } };
    const otherPrincipal = { ...doomed, servicePrincipal: { id: 'sp-other' } };
    for (const who of [foreignNamespace, otherPrincipal]) assert.equal((await fails(host, 'delete-agent', { owner: who }, { runtime: { openclawPath: gateway } })).code, 'ownership');
    // A user of the Agent's account name that no marker records is someone else's.
    await host.run(['useradd', '--system', accountOf(squatted)]);
    const squat = await fails(host, 'delete-agent', { owner: squatted });
    assert.equal(squat.code, 'ownership');
    assert.equal(squat.path, `${ROOT}/accounts/${accountOf(squatted)}.json`);
    // A unit file without the Agent's exact header is not the Agent's to remove.
    const unit = layoutOf(doomed).unitFile;
    const original = await host.run(['cat', unit]);
    await host.run(['sed', '-i', '1d', unit]);
    const edited = await tree();
    const header = await fails(host, 'delete-agent', { owner: doomed }, { runtime: { openclawPath: gateway } });
    assert.deepEqual([header.code, header.path], ['ownership', unit]);
    assert.equal(await tree(), edited);
    await host.run(['tee', unit], { input: original });
    await host.run(['userdel', accountOf(squatted)]);
    assert.equal(await tree(), before);
    // An account that no longer carries the recorded UID: a reused UID is never trusted.
    const uid = (await host.run(['id', '-u', accountOf(mismatched)])).trim();
    await host.run(['usermod', '--uid', String(Number(uid) + 1000), accountOf(mismatched)]);
    const changed = await tree();
    assert.equal((await fails(host, 'delete-agent', { owner: mismatched })).code, 'ownership');
    assert.equal(await tree(), changed);
    await host.run(['usermod', '--uid', uid, accountOf(mismatched)]);
    assert.equal(await isActive(layoutOf(doomed).unitName), 'active');
  });

  test('deletion stops the running gateway and removes its unit, directory, account and port, never following a planted link, with heartbeats throughout', async () => {
    const layout = layoutOf(doomed);
    const { port } = await ok(host, 'verify-revision', { owner: doomed, revision: prepareArgs(doomed, 1).revision });
    const siblingPid = await mainPid(host, sibling);
    const keep = await siblingKeep();
    const outside = await host.run(['sh', '-c', `cat /etc/hostname ${OUTSIDE}/keep ${OUTSIDE}/dir/file; stat -c '%U %a' / /etc/hostname ${OUTSIDE}`]);
    const arrivals = [Date.now()];
    const outcome = await call(host, 'delete-agent', { owner: doomed }, { runtime: { openclawPath: gateway }, send: sendTimed(host, arrivals) });
    assert.equal(outcome.line?.ok, true, outcome.stdout.slice(-500));
    assert.deepEqual(outcome.line.ok && outcome.line.result, { agentExisted: true, accountRemoved: true, unitRemoved: true, portFreed: port });
    const silence = Math.max(...arrivals.slice(1).map((at, i) => at - arrivals[i]!));
    process.stderr.write(`[delete-agent] ${DEPTH} deep + ${WIDE} entries deleted in ${outcome.ms} ms with ${outcome.heartbeats.length} heartbeats, longest silence ${silence} ms\n`);
    // Security: a removal that held the helper's event loop would leave the caller without a line for its whole length.
    assert.ok(silence < 5000, `no line for ${silence} ms`);
    for (const path of [
      layout.dir,
      deletingAgentPath(ROOT, doomed.namespace.id, doomed.agent.id),
      layout.unitFile,
      `${UNIT_DIR}/multi-user.target.wants/${layout.unitName}`,
      `${ROOT}/accounts/${accountOf(doomed)}.json`,
    ]) {
      assert.equal(await exists(host, path), false, path);
    }
    assert.notEqual(await isActive(layout.unitName), 'active');
    assert.equal((await host.exec(['systemctl', 'show', '--property=LoadState', '--value', layout.unitName])).stdout.trim(), 'not-found');
    for (const database of ['passwd', 'group']) assert.equal((await host.exec(['getent', database, accountOf(doomed)])).code, 2);
    // Nothing a planted link pointed at was touched, and the sibling never stopped serving.
    assert.equal(await host.run(['sh', '-c', `cat /etc/hostname ${OUTSIDE}/keep ${OUTSIDE}/dir/file; stat -c '%U %a' / /etc/hostname ${OUTSIDE}`]), outside);
    assert.equal(await siblingKeep(), keep);
    assert.equal(await host.run(['cat', `${layoutOf(sibling).state}/keep`]), 'keep');
    assert.equal(await mainPid(host, sibling), siblingPid);
    assert.equal(await readyz(siblingPort), '200');
    // The port is free: the next new Agent gets it.
    const next = { ...owner('next', 'agents'), namespace: doomed.namespace };
    assert.equal((await ok(host, 'prepare-revision', prepareArgs(next, 1))).port, port);
  });

  test('an Agent already gone is success, twice, and so is one of a Namespace that never existed', async () => {
    assert.deepEqual(await ok(host, 'delete-agent', { owner: doomed }), NOTHING);
    assert.deepEqual(await ok(host, 'delete-agent', { owner: doomed }), NOTHING);
    assert.deepEqual(await ok(host, 'delete-agent', { owner: owner('never', 'agents') }), NOTHING);
    assert.equal(await readyz(siblingPort), '200');
  });

  test('a directory an earlier version left renamed away is staged and removed by root, then the account goes', async () => {
    const who = { ...owner('cut', 'agents'), namespace: doomed.namespace };
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    const name = accountOf(who);
    await host.run([
      'setpriv',
      `--reuid=${name}`,
      `--regid=${name}`,
      '--clear-groups',
      '--',
      'sh',
      '-c',
      'mkdir -p "$1/a/b" && touch "$1/a/b/f" && chmod 000 "$1/a/b" "$1/a"',
      'sh',
      layoutOf(who).home,
    ]);
    const twin = deletingAgentPath(ROOT, who.namespace.id, who.agent.id);
    // What a cut after the rename left in an earlier version: the twin and the account.
    await host.run(['mv', layoutOf(who).dir, twin]);
    assert.deepEqual(await ok(host, 'delete-agent', { owner: who }), { agentExisted: true, accountRemoved: true, unitRemoved: false, portFreed: null });
    assert.equal(await exists(host, twin), false);
    assert.equal((await host.exec(['getent', 'passwd', name])).code, 2);
    assert.deepEqual(await ok(host, 'delete-agent', { owner: who }), NOTHING);
  });

  test('a cut after the account lost its user (userdel ran, the marker stayed) converges on retry', async () => {
    const who = { ...owner('half', 'agents'), namespace: doomed.namespace };
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    await host.run(['rm', '-rf', layoutOf(who).dir]);
    await host.run(['userdel', accountOf(who)]);
    assert.deepEqual(await ok(host, 'delete-agent', { owner: who }), { agentExisted: false, accountRemoved: true, unitRemoved: false, portFreed: null });
    assert.equal(await exists(host, `${ROOT}/accounts/${accountOf(who)}.json`), false);
    assert.equal((await host.exec(['getent', 'group', accountOf(who)])).code, 2);
  });
});
