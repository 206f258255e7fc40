// Real-host proof of probe, ensure-namespace and prepare-revision: accounts, ports, modes, snapshots.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountMarkerPath, accountName, agentLayout, namespaceLayout, revisionLayout } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, activateArgs, exists, fails, ok, owner, prepareArgs, statOf } from '@occ-ssh/test-support';

describe('prepare-revision on a real host', () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hprep' });
  });
  after(() => host?.down());

  const a = owner('alpha');
  const b = owner('beta');
  const layoutOf = (who = a) => agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);

  test('probe reports every required tool, takes no lock and creates nothing', async () => {
    const result = await ok(host, 'probe', {});
    assert.deepEqual(
      result.checks.filter((c) => !c.ok),
      [],
    );
    assert.deepEqual(
      result.checks.map((c) => c.name),
      ['systemctl', 'systemd-version', 'flock', 'getent', 'useradd', 'userdel', 'groupdel', 'node', 'node-version', 'openclaw', 'sandbox-paths'],
    );
    // The image's systemd: 252 on Debian 12, 257 on Debian 13; its Node line: 24 or 26.
    assert.match(result.checks.find((c) => c.name === 'systemd-version')?.detail ?? '', /^systemd 25[27]$/);
    assert.match(result.nodeVersion, /^v2[46]\./);
    assert.equal(await exists(host, ROOT), false);
  });

  test('probe names a missing OpenClaw entry', async () => {
    const result = await ok(host, 'probe', {}, { runtime: { openclawPath: '/opt/missing/openclaw.mjs', nodePath: host.nodePath } });
    assert.deepEqual(
      result.checks.filter((c) => !c.ok).map((c) => c.name),
      ['openclaw'],
    );
  });

  test('ensure-namespace creates a root-owned 0600 marker, then verifies it', async () => {
    assert.deepEqual(await ok(host, 'ensure-namespace', { namespace: a.namespace }), { created: true });
    assert.deepEqual(await ok(host, 'ensure-namespace', { namespace: a.namespace }), { created: false });
    assert.equal(await statOf(host, namespaceLayout(ROOT, a.namespace.id).marker), 'root:root 600 regular file');
    assert.equal(await statOf(host, `${ROOT}/.compute-lock`), 'root:root 600 regular empty file');
  });

  test('ensure-namespace refuses a marker naming another Namespace name', async () => {
    const error = await fails(host, 'ensure-namespace', { namespace: { id: a.namespace.id, name: 'other' } });
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, namespaceLayout(ROOT, a.namespace.id).marker);
  });

  test('prepare creates the private account, directories, password and immutable snapshot with exact modes', async () => {
    const args = prepareArgs(a, 1);
    const result = await ok(host, 'prepare-revision', args);
    const name = accountName('openclaw', a.namespace.id, a.agent.id);
    assert.equal(result.ready, true);
    assert.equal(result.snapshot, 'created');
    assert.equal(result.port, 18800);
    assert.equal(result.account.name, name);
    const passwd = (await host.run(['getent', 'passwd', name])).trim().split(':');
    assert.equal(Number(passwd[2]), result.account.uid);
    assert.equal(Number(passwd[3]), result.account.gid);
    assert.equal(passwd[6], '/usr/sbin/nologin');
    assert.ok(result.account.uid < 1000, 'a system account');
    const layout = layoutOf();
    const rev = revisionLayout(layout.dir, args.revision.id);
    assert.equal(await statOf(host, `${ROOT}/accounts/${name}.json`), 'root:root 600 regular file');
    assert.equal(await statOf(host, layout.marker), 'root:root 600 regular file');
    assert.equal(await statOf(host, layout.home), `${name}:${name} 700 directory`);
    assert.equal(await statOf(host, layout.state), `${name}:${name} 700 directory`);
    assert.equal(await statOf(host, layout.passwordFile), 'root:root 600 regular file');
    assert.equal(await statOf(host, rev.config), `root:${name} 640 regular file`);
    assert.equal(await statOf(host, rev.marker), 'root:root 600 regular file');
    assert.equal(await host.run(['cat', rev.config]), args.configuration.document);
    const marker = JSON.parse(await host.run(['cat', rev.marker])) as Record<string, unknown>;
    assert.deepEqual(
      { ...marker },
      {
        kind: 'revision',
        version: 1,
        driver: 'compute-ssh',
        namespaceId: a.namespace.id,
        agentId: a.agent.id,
        servicePrincipalId: a.servicePrincipal.id,
        revisionId: args.revision.id,
        revisionNumber: 1,
        configurationHash: args.configuration.hash,
        harness: 'openclaw/embedded',
        auth: 'password',
      },
    );
    assert.match(await host.run(['cat', layout.passwordFile]), /^OPENCLAW_GATEWAY_PASSWORD=[A-Za-z0-9_-]{43}\n$/);
  });

  test('preparation leaves the unit and current untouched', async () => {
    assert.equal(await exists(host, layoutOf().unitFile), false);
    assert.equal(await exists(host, layoutOf().current), false);
    assert.equal(await exists(host, layoutOf().served), false);
  });

  test('a repeated prepare verifies the snapshot and never rotates the password', async () => {
    const before = await host.run(['sha256sum', layoutOf().passwordFile]);
    const result = await ok(host, 'prepare-revision', prepareArgs(a, 1));
    assert.equal(result.snapshot, 'verified');
    assert.equal(await host.run(['sha256sum', layoutOf().passwordFile]), before);
  });

  test('a second Agent gets a distinct UID, GID and the next free port, across Namespaces', async () => {
    await ok(host, 'ensure-namespace', { namespace: b.namespace });
    const first = await ok(host, 'prepare-revision', prepareArgs(a, 1));
    const second = await ok(host, 'prepare-revision', prepareArgs(b, 1));
    assert.notEqual(second.account.uid, first.account.uid);
    assert.notEqual(second.account.gid, first.account.gid);
    assert.equal(second.port, 18801);
    const again = await ok(host, 'prepare-revision', prepareArgs(b, 2));
    assert.equal(again.port, 18801, 'an Agent keeps its port across revisions');
  });

  test("a sibling Agent cannot read another Agent's state or snapshot; each reads its own snapshot", async () => {
    const la = layoutOf(a);
    const lb = layoutOf(b);
    const nameA = accountName('openclaw', a.namespace.id, a.agent.id);
    const nameB = accountName('openclaw', b.namespace.id, b.agent.id);
    await host.run(['runuser', '-u', nameB, '--', 'touch', `${lb.state}/secret`]);
    const revB = revisionLayout(lb.dir, `rev-${b.agent.id}-1`).config;
    const revA = revisionLayout(la.dir, `rev-${a.agent.id}-1`).config;
    assert.notEqual((await host.exec(['runuser', '-u', nameA, '--', 'ls', lb.state])).code, 0);
    assert.notEqual((await host.exec(['runuser', '-u', nameA, '--', 'cat', revB])).code, 0);
    assert.notEqual((await host.exec(['runuser', '-u', nameA, '--', 'cat', lb.passwordFile])).code, 0);
    assert.equal((await host.exec(['runuser', '-u', nameA, '--', 'cat', revA])).code, 0);
    assert.notEqual((await host.exec(['runuser', '-u', nameA, '--', 'sh', '-c', `echo x >> ${revA}`])).code, 0, 'the gateway cannot rewrite its snapshot');
  });

  test('the same revision number under another revision ID is refused', async () => {
    const error = await fails(host, 'prepare-revision', prepareArgs(a, 1, {}, 'rev-impostor'));
    assert.equal(error.code, 'ownership');
    assert.match(error.message, /revision number 1 is already staged under a different revision ID/);
  });

  test('the same revision ID with different bytes is refused', async () => {
    const error = await fails(host, 'prepare-revision', prepareArgs(a, 1, { extra: true }));
    assert.equal(error.code, 'ownership');
  });

  test('a candidate older than the current revision answers not-ready and stages nothing', async () => {
    await ok(host, 'prepare-revision', prepareArgs(a, 5));
    await ok(host, 'activate-revision', activateArgs(prepareArgs(a, 5)));
    const result = await ok(host, 'prepare-revision', prepareArgs(a, 3));
    assert.equal(result.ready, false);
    assert.equal(result.reason, 'superseded');
    assert.equal(await exists(host, revisionLayout(layoutOf().dir, `rev-${a.agent.id}-3`).dir), false);
  });

  test('a snapshot whose bytes changed on the host is refused', async () => {
    const config = revisionLayout(layoutOf().dir, `rev-${a.agent.id}-5`).config;
    await host.run(['sh', '-c', `echo ' ' >> ${config}`]);
    const error = await fails(host, 'prepare-revision', prepareArgs(a, 5));
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, config);
  });

  test('prepare without the Namespace marker is refused and creates nothing', async () => {
    const c = owner('gamma');
    const error = await fails(host, 'prepare-revision', prepareArgs(c, 1));
    assert.equal(error.code, 'ownership');
    assert.equal((await host.exec(['getent', 'passwd', accountName('openclaw', c.namespace.id, c.agent.id)])).code, 2);
  });
  /** The account marker an interrupted creation leaves (state creating), as root; returns the account's name. */
  const plantCreatingMarker = async (cut: ReturnType<typeof owner>) => {
    const name = accountName('openclaw', cut.namespace.id, cut.agent.id);
    const marker = {
      kind: 'account',
      version: 1,
      driver: 'compute-ssh',
      namespaceId: cut.namespace.id,
      agentId: cut.agent.id,
      servicePrincipalId: cut.servicePrincipal.id,
      account: name,
      state: 'creating',
    };
    await host.run(['install', '-m', '600', '-o', 'root', '-g', 'root', '/dev/stdin', accountMarkerPath(ROOT, name)], { input: JSON.stringify(marker) });
    return name;
  };
  test('one useradd makes the account and its private group; a group an interrupted attempt left is reused', async () => {
    const fresh = owner('ugfresh');
    await ok(host, 'ensure-namespace', { namespace: fresh.namespace });
    await ok(host, 'prepare-revision', prepareArgs(fresh, 1));
    const freshName = accountName('openclaw', fresh.namespace.id, fresh.agent.id);
    const gidOf = async (name: string) => (await host.run(['getent', 'group', name])).split(':')[2];
    assert.equal((await host.run(['getent', 'passwd', freshName])).split(':')[3], await gidOf(freshName));

    // What an attempt cut between its group and its user leaves: the marker in state creating, and the group.
    const cut = owner('ugcut');
    const name = await plantCreatingMarker(cut);
    await host.run(['groupadd', '--system', name]);
    const leftGid = await gidOf(name);
    await ok(host, 'ensure-namespace', { namespace: cut.namespace });
    await ok(host, 'prepare-revision', prepareArgs(cut, 1));
    assert.equal((await host.run(['getent', 'passwd', name])).split(':')[3], leftGid);
  });

  test('a user an interrupted useradd left without its private group, or with a group of another GID, is made again whole', async () => {
    const accountOf = async (name: string) => {
      const [passwd, group] = await Promise.all([host.exec(['getent', 'passwd', name]), host.exec(['getent', 'group', name])]);
      return { primaryGid: passwd.stdout.split(':')[3], gid: group.code === 0 ? group.stdout.split(':')[2] : undefined };
    };
    for (const [tag, leave] of [
      // useradd commits /etc/passwd before /etc/group: cut between them, the user's primary GID has no group.
      ['ugnogroup', (name: string) => ['sh', '-c', 'useradd --system --user-group --no-create-home "$1" && sed -i "/^$1:/d" /etc/group /etc/gshadow', 'cut', name]],
      // What an earlier retry made of that: a group of the name, with a GID that is not the user's (its
      // own GID held by another group meanwhile, or allocated otherwise, as Debian 13's groupadd does).
      [
        'ugwrongid',
        (name: string) => [
          'sh',
          '-c',
          'useradd --system --user-group --no-create-home "$1" && sed -i "/^$1:/d" /etc/group /etc/gshadow && g=$(getent passwd "$1" | cut -d: -f4) && groupadd --system --gid "$g" "$1x" && groupadd --system "$1" && sed -i "/^$1x:/d" /etc/group /etc/gshadow',
          'cut',
          name,
        ],
      ],
    ] as const) {
      const cut = owner(tag);
      const name = await plantCreatingMarker(cut);
      await host.run(leave(name));
      const left = await accountOf(name);
      assert.notEqual(left.primaryGid, left.gid, `${tag}: the state is the interrupted one`);
      await ok(host, 'ensure-namespace', { namespace: cut.namespace });
      const prepared = await ok(host, 'prepare-revision', prepareArgs(cut, 1));
      const made = await accountOf(name);
      assert.equal(made.primaryGid, made.gid, `${tag}: the user's primary group is its private group`);
      assert.equal(String(prepared.account.gid), made.gid);
      assert.equal((JSON.parse(await host.run(['cat', accountMarkerPath(ROOT, name)])) as { state: string }).state, 'active');
    }
  });
});
