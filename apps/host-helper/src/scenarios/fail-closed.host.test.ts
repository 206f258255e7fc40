// Real-host proof that the helper refuses what it does not own, validates a whole set before its
// first effect, and never moves an Agent to an older revision.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentHash, namespaceLayout, revisionLayout, rootLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, accountOf, activateArgs, exists, fails, layoutOf, mainPid, ok, owner, prepareArgs, shell, unitState } from '@occ-ssh/test-support';

describe('fail closed on a real host', () => {
  let host: TestHost;
  const hasUser = async (who: AgentOwner) => (await host.exec(['getent', 'passwd', accountOf(who)])).code === 0;
  const fingerprint = (paths: string[]) => shell(host, `for p in ${paths.join(' ')}; do stat -c '%n %U:%G %a %s %Y' $p; sha256sum $p; done 2>&1`);
  const treeHash = () => shell(host, `find ${ROOT} ${UNIT_DIR} -printf '%p %u %g %m %s %l\\n' 2>/dev/null | sort | sha256sum; getent passwd | sha256sum; getent group | sha256sum`);
  /** Prepares (and optionally activates) revision `number` of an Agent whose Namespace exists. */
  const deploy = async (who: AgentOwner, number: number, activate = true) => {
    await ok(host, 'prepare-revision', prepareArgs(who, number));
    if (activate) await ok(host, 'activate-revision', activateArgs(prepareArgs(who, number)));
  };

  before(async () => {
    host = await startTestHost({ name: 'hfail' });
  });
  after(() => host?.down());

  test('a Namespace directory without its marker is refused and no marker is written; an interrupted creation is swept', async () => {
    const who = owner('nomarker', 'nomarker');
    const ns = namespaceLayout(ROOT, who.namespace.id);
    await ok(host, 'ensure-namespace', { namespace: owner('base').namespace });
    await host.run(['mkdir', '-m', '711', ns.dir, ns.agents]);
    const error = await fails(host, 'ensure-namespace', { namespace: who.namespace });
    assert.deepEqual([error.code, error.path], ['ownership', ns.marker]);
    assert.equal(await exists(host, ns.marker), false);

    await host.run(['rm', '-r', ns.dir]);
    const leftover = `${ROOT}/namespaces/.${ns.dir.split('/').pop()}.tmp-0123456789ab`;
    await host.run(['mkdir', '-m', '700', leftover]);
    assert.deepEqual(await ok(host, 'ensure-namespace', { namespace: who.namespace }), { created: true });
    assert.equal(await exists(host, leftover), false, 'the temp directory of an interrupted creation is swept');
    assert.equal((await host.run(['stat', '-c', '%U:%G %a', ns.dir, ns.marker, ns.agents])).trim(), 'root:root 711\nroot:root 600\nroot:root 711');
    await ok(host, 'delete-namespace', { namespace: who.namespace });
  });

  test('prepare verifies the ownership header of an existing unit file, for a known and a new Agent', async () => {
    const known = owner('unitk', 'unitk');
    const fresh = { ...owner('unitn', 'unitk'), namespace: known.namespace };
    await ok(host, 'ensure-namespace', { namespace: known.namespace });
    await deploy(known, 1, false);
    for (const who of [known, fresh]) {
      await host.run(['install', '-m', '644', '/dev/stdin', layoutOf(who).unitFile], { input: '[Service]\nExecStart=/bin/true\n' });
    }
    const before = await treeHash();
    for (const who of [known, fresh]) {
      const error = await fails(host, 'prepare-revision', prepareArgs(who, 2));
      assert.deepEqual([error.code, error.path], ['ownership', layoutOf(who).unitFile]);
    }
    assert.equal(await treeHash(), before, 'nothing was created or changed');
    assert.equal(await hasUser(fresh), false);
    await host.run(['rm', layoutOf(known).unitFile, layoutOf(fresh).unitFile]);
    await ok(host, 'delete-namespace', { namespace: known.namespace });
  });

  test('a prepare of an Agent whose account marker vanished is refused without creating an account', async () => {
    const who = owner('noacct', 'noacct');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await deploy(who, 1, false);
    await host.run(['userdel', accountOf(who)]);
    await host.run(['rm', `${ROOT}/accounts/${accountOf(who)}.json`]);
    const error = await fails(host, 'prepare-revision', prepareArgs(who, 2));
    assert.deepEqual([error.code, error.path], ['ownership', `${ROOT}/accounts/${accountOf(who)}.json`]);
    assert.equal(await hasUser(who), false, 'no account was created for an Agent that already has a marker');
    assert.equal(await exists(host, `${ROOT}/accounts/${accountOf(who)}.json`), false);
    await host.run(['rm', '-r', namespaceLayout(ROOT, who.namespace.id).dir]);
  });

  test('the port scan fails closed on a Namespace without its marker, an Agent without its marker, a link and two Agents on one port', async () => {
    const a = owner('porta', 'ports');
    const b = { ...owner('portb', 'ports'), namespace: a.namespace };
    const newcomer = owner('portnew', 'portnew');
    for (const who of [a, newcomer]) await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await deploy(a, 1, false);
    await deploy(b, 1, false);
    const stray = namespaceLayout(ROOT, 'ns-stray');
    const strayAgent = `${namespaceLayout(ROOT, a.namespace.id).agents}/${agentHash('agent-stray')}`;
    const portOf = async (who: AgentOwner) => (JSON.parse(await host.run(['cat', layoutOf(who).marker])) as { port: number }).port;
    const original = await host.run(['cat', layoutOf(b).marker]);
    const [portA, portB] = [await portOf(a), await portOf(b)];
    const faults: [string, () => Promise<unknown>, () => Promise<unknown>, string[], RegExp][] = [
      ['Namespace without marker', () => host.run(['mkdir', '-m', '711', stray.dir]), () => host.run(['rm', '-r', stray.dir]), [stray.marker], /Namespace directory has no marker/],
      ['Agent without marker', () => host.run(['mkdir', '-m', '711', strayAgent]), () => host.run(['rm', '-r', strayAgent]), [`${strayAgent}/agent.json`], /Agent directory has no marker/],
      ['Namespace directory replaced by a link', () => host.run(['ln', '-s', '/var/tmp', stray.dir]), () => host.run(['rm', stray.dir]), [stray.dir], /expected a directory, found a link/],
      [
        'two Agents on one port',
        () => host.run(['sed', '-i', `s/"port": ${portB}/"port": ${portA}/`, layoutOf(b).marker]),
        () => host.run(['tee', layoutOf(b).marker], { input: original }),
        [layoutOf(a).marker, layoutOf(b).marker],
        new RegExp(`records port ${portA}, which .* records too`),
      ],
    ];
    for (const [name, plant, undo, paths, message] of faults) {
      await plant();
      // The scan is what reads the markers; the port index (which a damaged marker inside an Agent
      // directory does not invalidate) is taken away so that it is the scan that answers.
      await host.run(['rm', '-f', rootLayout(ROOT).ports]);
      const before = await treeHash();
      const error = await fails(host, 'prepare-revision', prepareArgs(newcomer, 1));
      assert.equal(error.code, 'ownership', name);
      assert.ok(paths.includes(error.path ?? ''), `${name}: ${error.path}`);
      assert.match(error.message, message, name);
      assert.equal(await treeHash(), before, `${name}: nothing was created`);
      assert.equal(await hasUser(newcomer), false, name);
      await undo();
    }
    assert.equal((await ok(host, 'prepare-revision', prepareArgs(newcomer, 1))).ready, true, 'allocation works again once the host is sound');
    for (const who of [a, newcomer]) await ok(host, 'delete-namespace', { namespace: who.namespace });
  });

  test('delete-namespace validates every account, revision and snapshot before it stops anything', async () => {
    const a = owner('dva', 'dval');
    const b = { ...owner('dvb', 'dval'), namespace: a.namespace };
    await ok(host, 'ensure-namespace', { namespace: a.namespace });
    await deploy(a, 1);
    await deploy(b, 1, false);
    const configB = revisionLayout(layoutOf(b).dir, prepareArgs(b, 1).revision.id);
    const before = { pid: await mainPid(host, a), unit: await host.run(['sha256sum', layoutOf(a).unitFile]) };
    const original = { b: await host.run(['cat', layoutOf(b).marker]) };
    const faults: [string, () => Promise<unknown>, () => Promise<unknown>, string][] = [
      ['changed snapshot', () => shell(host, `printf ' ' >> ${configB.config}`), () => shell(host, `truncate -s -1 ${configB.config}`), configB.config],
      [
        'revision directory renamed',
        () => host.run(['mv', configB.dir, `${layoutOf(b).revisions}/0123456789ab`]),
        () => host.run(['mv', `${layoutOf(b).revisions}/0123456789ab`, configB.dir]),
        `${layoutOf(b).revisions}/0123456789ab/revision.json`,
      ],
      [
        'reused UID',
        () => host.run(['usermod', '-u', '4343', accountOf(b)]),
        () => host.run(['usermod', '-u', String(JSON.parse(original.b).uid), accountOf(b)]),
        `${ROOT}/accounts/${accountOf(b)}.json`,
      ],
      [
        'account marker missing',
        () => host.run(['mv', `${ROOT}/accounts/${accountOf(b)}.json`, '/root/moved.json']),
        () => host.run(['mv', '/root/moved.json', `${ROOT}/accounts/${accountOf(b)}.json`]),
        `${ROOT}/accounts/${accountOf(b)}.json`,
      ],
    ];
    for (const [name, plant, undo, path] of faults) {
      await plant();
      const tree = await treeHash();
      const error = await fails(host, 'delete-namespace', { namespace: a.namespace });
      assert.deepEqual([error.code, error.path], ['ownership', path], name);
      assert.equal(await unitState(host, a), 'active', `${name}: no gateway was stopped`);
      assert.equal(await mainPid(host, a), before.pid, name);
      assert.equal(await treeHash(), tree, `${name}: nothing was disabled or removed`);
      await undo();
    }
    assert.equal(await host.run(['sha256sum', layoutOf(a).unitFile]), before.unit);
    assert.equal((await ok(host, 'delete-namespace', { namespace: a.namespace })).agentsRemoved, 2, 'deletion goes ahead once the set is sound');
  });

  test('verify-, stop- and retire-revision refuse a changed snapshot and leave it, the unit and current in place', async () => {
    const who = owner('stopchg', 'stopchg');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await deploy(who, 1);
    const rev = revisionLayout(layoutOf(who).dir, prepareArgs(who, 1).revision.id);
    await shell(host, `printf ' ' >> ${rev.config}`);
    const kept = [rev.config, rev.marker, layoutOf(who).served, layoutOf(who).unitFile];
    const before = { files: await fingerprint(kept), current: await host.run(['readlink', layoutOf(who).current]), pid: await mainPid(host, who) };
    for (const operation of ['verify-revision', 'stop-revision', 'retire-revision'] as const) {
      const error = await fails(host, operation, { owner: who, revision: prepareArgs(who, 1).revision });
      assert.deepEqual([error.code, error.path], ['ownership', rev.config], operation);
    }
    assert.equal(await fingerprint(kept), before.files, 'the changed snapshot is left for inspection');
    assert.equal(await host.run(['readlink', layoutOf(who).current]), before.current);
    assert.equal(await unitState(host, who), 'active');
    assert.equal(await mainPid(host, who), before.pid);
    await shell(host, `truncate -s -1 ${rev.config}`);
    await ok(host, 'delete-namespace', { namespace: who.namespace });
  });

  test('prepare refuses a password file with the wrong mode before it touches home/ or state/', async () => {
    const who = owner('pwmode', 'pwmode');
    const layout = layoutOf(who);
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await deploy(who, 1, false);
    await host.run(['chmod', '644', layout.passwordFile]);
    await host.run(['chmod', '755', layout.state]);
    const error = await fails(host, 'prepare-revision', prepareArgs(who, 2));
    assert.deepEqual([error.code, error.path], ['ownership', layout.passwordFile]);
    assert.equal((await host.run(['stat', '-c', '%a', layout.state])).trim(), '755', 'state/ was not repaired by a refused prepare');
    assert.equal(await exists(host, revisionLayout(layout.dir, prepareArgs(who, 2).revision.id).dir), false);
    await host.run(['chmod', '600', layout.passwordFile]);
    await ok(host, 'delete-namespace', { namespace: who.namespace });
  });

  test('activation refuses a served.json of another Agent instead of removing it', async () => {
    const who = owner('served', 'served');
    const layout = layoutOf(who);
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await deploy(who, 1);
    await deploy(who, 2, false);
    await host.run(['sed', '-i', `s/"agentId": "${who.agent.id}"/"agentId": "agent-someone-else"/`, layout.served]);
    const before = { files: await fingerprint([layout.served, layout.unitFile]), current: await host.run(['readlink', layout.current]), pid: await mainPid(host, who) };
    const error = await fails(host, 'activate-revision', activateArgs(prepareArgs(who, 2)));
    assert.deepEqual([error.code, error.path], ['ownership', layout.served]);
    assert.deepEqual({ files: await fingerprint([layout.served, layout.unitFile]), current: await host.run(['readlink', layout.current]), pid: await mainPid(host, who) }, before);
    await host.run(['rm', layout.served]);
    await ok(host, 'delete-namespace', { namespace: who.namespace });
  });

  test('a newer revision staged but never activated does not supersede the current one', async () => {
    const who = owner('order', 'order');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await deploy(who, 1);
    await deploy(who, 2, false);
    const again = await ok(host, 'prepare-revision', prepareArgs(who, 1));
    assert.deepEqual([again.ready, again.snapshot], [true, 'verified'], 'OCC re-preparing its active revision is answered ready');
    await ok(host, 'activate-revision', activateArgs(prepareArgs(who, 2)));
    const late = await ok(host, 'prepare-revision', prepareArgs(who, 1));
    assert.deepEqual([late.ready, late.ready ? '' : late.reason], [false, 'superseded'], 'older than the current revision');
  });

  test('activating a revision older than the current one is refused, with current, unit and gateway untouched', async () => {
    const who = owner('order', 'order');
    const layout = layoutOf(who);
    const before = { files: await fingerprint([layout.unitFile, layout.served]), current: await host.run(['readlink', layout.current]), pid: await mainPid(host, who) };
    const error = await fails(host, 'activate-revision', activateArgs(prepareArgs(who, 1)));
    assert.deepEqual([error.code, error.path], ['ownership', layout.current]);
    assert.match(error.message, /revision 1 is not newer than revision 2/);
    assert.equal(await host.run(['readlink', layout.current]), before.current);
    assert.equal(await fingerprint([layout.unitFile, layout.served]), before.files);
    assert.equal(await mainPid(host, who), before.pid, 'the gateway was not restarted');
    await deploy(who, 3);
    assert.equal((JSON.parse(await host.run(['cat', layout.served])) as { revisionNumber: number }).revisionNumber, 3, 'recovery goes forward with a new revision');
  });
});
