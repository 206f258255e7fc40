// Real-host proof of where Agent account IDs come from and what happens when they run out: with the
// Installation's range, accounts take their UID and GID from it and get no subordinate IDs; with
// none, they are system accounts from login.defs' range. At the ceiling, prepare refuses a new Agent
// with `capacity` before any change, the probe reports 0 left, and a deletion makes room again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentOwner, RuntimeSettings } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, accountOf, fails, ok, owner, prepareArgs } from '@occ-ssh/test-support';

const TREE = `find ${ROOT} ${UNIT_DIR} -printf '%p %u %g %m %s %l\\n' 2>/dev/null | sort | sha256sum; getent passwd | sha256sum; getent group | sha256sum`;

describe('Agent account IDs on a real host', { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hacctids' });
  });
  after(() => host?.down());

  const ids = async (who: AgentOwner) => (await host.run(['sh', '-c', 'echo $(id -u "$1") $(id -g "$1")', 'sh', accountOf(who)])).trim().split(' ').map(Number);

  /** Prepares Agents `tags` in one Namespace, then one more, which must be refused at the ceiling with nothing changed. */
  async function fillThenRefuse(prefix: string, runtime: Partial<RuntimeSettings>, expectedMessage: RegExp): Promise<AgentOwner[]> {
    const tenants = ['a', 'b'].map((tag) => owner(`${prefix}-${tag}`, 'shared'));
    const who = (i: number) => ({ ...tenants[i]!, namespace: tenants[0]!.namespace });
    await ok(host, 'ensure-namespace', { namespace: tenants[0]!.namespace }, { runtime });
    for (let i = 0; i < tenants.length; i += 1) await ok(host, 'prepare-revision', prepareArgs(who(i), 1), { runtime });
    assert.equal((await ok(host, 'probe', {}, { runtime })).capacity.freeAccountIds, 0, 'the probe reports no account left');
    const before = await host.run(['sh', '-c', TREE]);
    const extra = { ...owner(`${prefix}-c`, 'shared'), namespace: tenants[0]!.namespace };
    const refused = await fails(host, 'prepare-revision', prepareArgs(extra, 1), { runtime });
    assert.equal(refused.code, 'capacity');
    assert.match(refused.message, expectedMessage);
    assert.equal(await host.run(['sh', '-c', TREE]), before, 'the refusal changed nothing');
    // A deletion frees its IDs; the refused Agent then gets them.
    await ok(host, 'delete-agent', { owner: who(1) }, { runtime });
    await ok(host, 'prepare-revision', prepareArgs(extra, 1), { runtime });
    return [who(0), extra];
  }

  test("with the Installation's range, accounts take their IDs from it, get no subordinate IDs, and the range's end is a capacity refusal", async () => {
    const runtime = { accountIdRange: { start: 23000, end: 23001 } };
    const agents = await fillThenRefuse('range', runtime, /^no free UID left for a new Agent account in 23000-23001 \(runtime\.accountIdRange\): widen runtime\.accountIdRange/);
    const seen = await Promise.all(agents.map(ids));
    for (const [uid, gid] of seen) {
      assert.ok(uid! >= 23000 && uid! <= 23001 && gid! >= 23000 && gid! <= 23001, `UID ${uid} and GID ${gid} in the range`);
    }
    assert.notEqual(seen[0]![0], seen[1]![0], 'each account its own UID');
    // The control: on this host an ordinary account made without SUB_UID_COUNT=0 does get subordinate IDs.
    await host.run(['useradd', '--key', 'UID_MIN=23500', '--key', 'UID_MAX=23500', '--no-create-home', 'occ-control']);
    assert.match((await host.run(['cat', '/etc/subuid'])).trim(), /^occ-control:\d+:65536$/m);
    await host.run(['userdel', 'occ-control']);
    for (const file of ['/etc/subuid', '/etc/subgid']) {
      const text = (await host.exec(['cat', file])).stdout;
      for (const who of agents) assert.ok(!text.includes(`${accountOf(who)}:`), `${file} gives ${accountOf(who)} no subordinate IDs`);
    }
  });

  test("with no range, accounts are system accounts from login.defs' range, and its end is a capacity refusal naming it", async () => {
    // The host's own system accounts sit at the low end: a two-ID range at the top is all the Agents'.
    await host.run(['cp', '/etc/login.defs', '/etc/login.defs.before']);
    try {
      await host.run(['sh', '-c', 'printf "SYS_UID_MIN 990\\nSYS_UID_MAX 991\\nSYS_GID_MIN 990\\nSYS_GID_MAX 991\\n" >> /etc/login.defs']);
      const agents = await fillThenRefuse('system', {}, /^no free UID left for a new Agent account in 990-991 \(\/etc\/login\.defs SYS_UID_MIN-SYS_UID_MAX\): set runtime\.accountIdRange/);
      for (const [uid, gid] of await Promise.all(agents.map(ids))) assert.ok(uid! >= 990 && uid! <= 991 && gid! >= 990 && gid! <= 991, `UID ${uid} and GID ${gid} from login.defs`);
    } finally {
      await host.run(['mv', '/etc/login.defs.before', '/etc/login.defs']);
    }
  });
});
