// Real-host proof of a systemdUnitDirectory outside systemd's unit load path: units are enabled by
// absolute path, and stop, retire and delete relink the owned unit first, so nothing is left behind.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentLayout, SYSTEMD_CONFIG_DIR } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, activateArgs, exists, fails, ok, owner, prepareArgs } from '@occ-ssh/test-support';

const UNITS = '/srv/occ-units';
const runtime = { systemdUnitDirectory: UNITS };

describe("a unit directory outside systemd's load path, on a real host", () => {
  let host: TestHost;
  const who = owner('units-a');
  const layout = agentLayout(ROOT, UNITS, who.namespace.id, who.agent.id);
  const link = `${SYSTEMD_CONFIG_DIR}/${layout.unitName}`;
  const wants = `${SYSTEMD_CONFIG_DIR}/multi-user.target.wants/${layout.unitName}`;
  const isActive = async (unit: string) => (await host.exec(['systemctl', 'is-active', unit])).stdout.trim();
  /** Every trace of the unit systemd could find: entries under its configuration directory and its unit-file list. */
  const traces = async (unit: string) => {
    const found = (await host.run(['find', SYSTEMD_CONFIG_DIR, '-name', unit])).split('\n').filter(Boolean);
    // Exits 1 when it lists nothing.
    const listed = (await host.exec(['systemctl', 'list-unit-files', '--no-legend', unit])).stdout.split('\n').filter(Boolean);
    return [...found, ...listed];
  };
  const activate = async (agent: AgentOwner, number: number) => {
    const args = prepareArgs(agent, number);
    await ok(host, 'prepare-revision', args, { runtime });
    return ok(host, 'activate-revision', activateArgs(args), { runtime });
  };

  before(async () => {
    host = await startTestHost({ name: 'hunits' });
    await host.run(['install', '-d', '-m', '0755', UNITS]);
    await ok(host, 'ensure-namespace', { namespace: who.namespace }, { runtime });
  });
  after(() => host?.down());

  test('prepare and activate serve: the unit is enabled by absolute path through a link in the load path', async () => {
    const result = await activate(who, 1);
    assert.equal(result.unit, layout.unitName);
    assert.equal(await isActive(layout.unitName), 'active');
    assert.equal((await host.exec(['systemctl', 'is-enabled', layout.unitName])).stdout.trim(), 'enabled');
    assert.equal((await host.run(['readlink', link])).trim(), layout.unitFile);
    assert.equal((await host.run(['readlink', wants])).trim(), layout.unitFile);
    assert.equal((await host.run(['stat', '-c', '%U %a %F', layout.unitFile])).trim(), 'root 644 regular file');
    assert.match(await host.run(['cat', layout.unitFile]), new RegExp(`^InaccessiblePaths=${UNITS} ${SYSTEMD_CONFIG_DIR} -/run/dbus/system_bus_socket$`, 'm'));
  });

  test('stop leaves no link behind, and a later activation enables the unit again', async () => {
    await ok(host, 'stop-revision', { owner: who, revision: prepareArgs(who, 1).revision }, { runtime });
    assert.notEqual(await isActive(layout.unitName), 'active');
    assert.deepEqual(await traces(layout.unitName), []);
    await activate(who, 2);
    assert.equal(await isActive(layout.unitName), 'active');
    assert.equal((await host.run(['readlink', link])).trim(), layout.unitFile);
  });

  test('with the link removed by hand and systemd reloaded, stop still stops the gateway and leaves nothing', async () => {
    await host.run(['rm', link]);
    await host.run(['systemctl', 'daemon-reload']);
    await ok(host, 'stop-revision', { owner: who, revision: prepareArgs(who, 2).revision }, { runtime });
    assert.notEqual(await isActive(layout.unitName), 'active');
    assert.deepEqual(await traces(layout.unitName), []);
  });

  test('with both links removed by hand and systemd reloaded, stop relinks the unit, so the still-running gateway is stopped', async () => {
    await activate(who, 3);
    await host.run(['rm', link, wants]);
    await host.run(['systemctl', 'daemon-reload']);
    assert.equal((await host.run(['systemctl', 'show', '--property=LoadState', '--value', layout.unitName])).trim(), 'not-found');
    assert.equal(await isActive(layout.unitName), 'active');
    await ok(host, 'stop-revision', { owner: who, revision: prepareArgs(who, 3).revision }, { runtime });
    assert.notEqual(await isActive(layout.unitName), 'active');
    assert.deepEqual(await traces(layout.unitName), []);
  });

  test('with the link removed by hand, retiring the current revision stops it and leaves nothing', async () => {
    await activate(who, 4);
    await host.run(['rm', link]);
    const result = await ok(host, 'retire-revision', { owner: who, revision: prepareArgs(who, 4).revision }, { runtime });
    assert.equal(result.wasCurrent, true);
    assert.notEqual(await isActive(layout.unitName), 'active');
    assert.deepEqual(await traces(layout.unitName), []);
  });

  test('a link in the load path named like the unit but pointing elsewhere is refused and never followed', async () => {
    await activate(who, 5);
    await host.run(['rm', link]);
    await host.run(['sh', '-c', 'printf "[Service]\\nExecStart=/bin/sleep 600\\n" > /srv/foreign.service']);
    await host.run(['ln', '-s', '/srv/foreign.service', link]);
    for (const [operation, args] of [
      ['stop-revision', { owner: who, revision: prepareArgs(who, 5).revision }],
      ['activate-revision', activateArgs(prepareArgs(who, 5))],
      ['delete-agent', { owner: who }],
      ['delete-namespace', { namespace: who.namespace }],
    ] as const) {
      const error = await fails(host, operation, args as never, { runtime });
      assert.equal(error.code, 'ownership', operation);
      assert.equal(error.path, link, operation);
    }
    assert.equal((await host.run(['readlink', link])).trim(), '/srv/foreign.service');
    assert.equal(await isActive(layout.unitName), 'active');
    assert.notEqual(await isActive('foreign.service'), 'active');
    await host.run(['rm', link]);
  });

  test('with both links removed by hand and systemd reloaded, delete-agent stops the gateway and leaves no unit file or link', async () => {
    const doomed = { ...owner('units-c'), namespace: who.namespace };
    const doomedLayout = agentLayout(ROOT, UNITS, who.namespace.id, doomed.agent.id);
    await activate(doomed, 1);
    await host.run(['rm', `${SYSTEMD_CONFIG_DIR}/${doomedLayout.unitName}`, `${SYSTEMD_CONFIG_DIR}/multi-user.target.wants/${doomedLayout.unitName}`]);
    await host.run(['systemctl', 'daemon-reload']);
    assert.equal(await isActive(doomedLayout.unitName), 'active');
    const result = await ok(host, 'delete-agent', { owner: doomed }, { runtime });
    assert.equal(result.unitRemoved, true);
    assert.notEqual(await isActive(doomedLayout.unitName), 'active');
    assert.equal(await exists(host, doomedLayout.unitFile), false);
    assert.deepEqual(await traces(doomedLayout.unitName), []);
    assert.equal(await isActive(layout.unitName), 'active', 'the sibling keeps serving');
  });

  test('with the link removed by hand, delete-namespace stops every unit and leaves no unit file or link', async () => {
    const sibling = { ...owner('units-b'), namespace: who.namespace };
    const siblingLayout = agentLayout(ROOT, UNITS, who.namespace.id, sibling.agent.id);
    await activate(sibling, 1);
    await host.run(['rm', `${SYSTEMD_CONFIG_DIR}/${siblingLayout.unitName}`]);
    const result = await ok(host, 'delete-namespace', { namespace: who.namespace }, { runtime });
    assert.equal(result.agentsRemoved, 2);
    for (const gone of [layout, siblingLayout]) {
      assert.notEqual(await isActive(gone.unitName), 'active');
      assert.equal(await exists(host, gone.unitFile), false);
      assert.deepEqual(await traces(gone.unitName), []);
    }
  });
});
