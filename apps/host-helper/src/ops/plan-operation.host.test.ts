// Real-host proof of plan-operation: the steps it returns for activation and retirement are the steps
// the real operations then apply (the audit line's plan= digest), it changes nothing and takes no lock,
// and it never shows a file's contents: the launch environment's value appears nowhere in the plan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, activateArgs, ok, owner, prepareArgs, shell } from '@occ-ssh/test-support';

describe('plan-operation on a real host', () => {
  let host: TestHost;
  const who = owner('planner');
  const rev1 = prepareArgs(who, 1);
  const rev2 = prepareArgs(who, 2);
  const lastPlans = async (operation: string) => {
    const lines = (await host.run(['journalctl', '--no-pager', '-o', 'cat', '_UID=0', '_TRANSPORT=syslog', 'SYSLOG_IDENTIFIER=occ-ssh-helper'])).trim().split('\n');
    const line = lines.filter((l) => l.startsWith(`operation=${operation} outcome=ok `)).at(-1) ?? '';
    return / plan=(\S+)/.exec(line)?.[1]?.split(',') ?? [];
  };

  before(async () => {
    host = await startTestHost({ name: 'hplan' });
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', rev1);
    await ok(host, 'prepare-revision', rev2);
  });
  after(() => host?.down());

  test('the activation switch it plans is the one activation applies, with the record named for after the wait', async () => {
    const args = activateArgs(rev1, { OCC_IAM_TOKEN: 'opaque-plan-secret' });
    const before = await shell(host, `find ${ROOT} /etc/systemd/system -xdev -printf "%p %m %U:%G %s\\n" | sort`);
    // Under a held host lock: a plan neither waits for it nor needs it (a change would wait, then time out).
    const holder = (await shell(host, `setsid flock ${ROOT}/.compute-lock sleep 60 </dev/null >/dev/null 2>&1 & echo $!`)).trim();
    let plan;
    try {
      plan = await ok(host, 'plan-operation', { operation: 'activate-revision', args });
    } finally {
      await host.exec(['kill', '--', `-${holder}`]);
    }
    assert.equal(await shell(host, `find ${ROOT} /etc/systemd/system -xdev -printf "%p %m %U:%G %s\\n" | sort`), before, 'planning changed nothing');
    assert.ok(plan.steps.some((s) => s.op === 'restart-unit'));
    assert.ok(plan.steps.some((s) => s.op === 'enable-unit'));
    // A new Agent's unit is one systemd has not loaded: no reload is planned under the lock, one may follow outside it.
    assert.equal(
      plan.steps.some((s) => s.op === 'daemon-reload'),
      false,
    );
    assert.match(plan.after ?? '', /wait up to \d+ ms for \/readyz on 127\.0\.0\.1:\d+, with a daemon-reload outside the lock if systemd then asks for one, and record served\.json/);
    assert.equal(JSON.stringify(plan).includes('opaque-plan-secret'), false, 'contents are shown by digest only');
    assert.ok(plan.steps.some((s) => s.op === 'write-file' && /^[0-9a-f]{64}$/.test(String(s.details['sha256']))));
    await ok(host, 'activate-revision', args);
    const applied = await lastPlans('activate-revision');
    assert.equal(applied.length, 2, 'the switch, then the record');
    assert.equal(applied[0], plan.digest);
  });

  test('retiring the current revision: the planned stop and removal are the applied ones', async () => {
    const args = { owner: who, revision: rev1.revision };
    const plan = await ok(host, 'plan-operation', { operation: 'retire-revision', args });
    assert.deepEqual(
      plan.steps.map((s) => s.op),
      ['stop-and-disable', 'remove-file', 'remove-file', 'remove-file', 'remove-file', 'remove-tree'],
    );
    await ok(host, 'retire-revision', args);
    assert.deepEqual(await lastPlans('retire-revision'), [plan.digest]);
  });
});
