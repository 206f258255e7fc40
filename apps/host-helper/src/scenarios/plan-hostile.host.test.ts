// Real-host proof that planning holds against a compromised gateway: what the gateway planted in its
// own home/ and state/ (a deep chain, a wide directory, links out to the host, a FIFO and a link
// where workspace documents go) is never followed, walked or read by plan-operation; a plan changes
// nothing, refuses exactly as the real operation does, and the plan applied is the plan shown.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PlannedStep } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, activateArgs, fails, installTenantGateway, layoutOf, ok, owner, prepareArgs, shell } from '@occ-ssh/test-support';

const VICTIM = '/srv/plan-victim';
const SECRET = 'root-only-plan-secret';
/** Names the attack plants; none may appear in a plan. */
const PLANTED = ['chain', 'wide', 'out-root', 'out-shadow', 'AGENTS.md', 'SOUL.md'];

/** The attack, run as the Agent inside its unit at gateway start; it plants once, then writes planted.json. */
const ATTACK = `
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const home = process.env.HOME;
const state = process.env.OPENCLAW_STATE_DIR;
if (!fs.existsSync(state + '/planted.json')) {
  fs.mkdirSync(home + '/chain');
  let dir = home + '/chain';
  for (let i = 0; i < 1500; i++) { dir += '/d'; fs.mkdirSync(dir); }
  fs.mkdirSync(state + '/wide');
  fs.writeFileSync(state + '/wide/base', 'x');
  for (let i = 0; i < 20000; i++) fs.linkSync(state + '/wide/base', state + '/wide/' + i);
  fs.symlinkSync('/', home + '/out-root');
  fs.symlinkSync('/etc/shadow', state + '/out-shadow');
  fs.mkdirSync(state + '/workspace', { recursive: true });
  execFileSync('mkfifo', [state + '/workspace/AGENTS.md']);
  fs.symlinkSync(${JSON.stringify(`${VICTIM}/SOUL.md`)}, state + '/workspace/SOUL.md');
  fs.writeFileSync(state + '/planted.json', '{}');
}
`;

describe('planning against a compromised gateway on a real host', { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  const who = owner('plan-hostile');
  const layout = layoutOf(who);
  const rev1 = prepareArgs(who, 1);
  const rev2 = prepareArgs(who, 2);
  let runtime: { openclawPath: string };
  /** Every path, type, mode and owner under the root and the unit directory, and the victim's bytes. */
  const fingerprint = () => shell(host, `{ find ${ROOT} ${UNIT_DIR} -xdev -printf "%p %y %m %U:%G %s\\n" | sort; sha256sum ${VICTIM}/SOUL.md /etc/shadow; } | sha256sum`);
  const plan = (operation: string, args: unknown) => ok(host, 'plan-operation', { operation, args } as never, { runtime });
  const auditedPlans = async (operation: string) => {
    const lines = (await host.run(['journalctl', '--no-pager', '-o', 'cat', '_UID=0', '_TRANSPORT=syslog', 'SYSLOG_IDENTIFIER=occ-ssh-helper'])).trim().split('\n');
    return / plan=(\S+)/.exec(lines.filter((l) => l.startsWith(`operation=${operation} outcome=ok `)).at(-1) ?? '')?.[1]?.split(',') ?? [];
  };
  /** A plan acts on the root, the unit directory and unit names only, and on nothing the gateway planted. */
  const assertContained = (what: string, steps: readonly PlannedStep[]) => {
    const text = JSON.stringify(steps);
    assert.equal(text.includes(SECRET) || text.includes('/etc/shadow') || text.includes(VICTIM), false, `${what}: ${text}`);
    for (const step of steps) {
      if (!step.target.startsWith('/')) continue;
      assert.ok(step.target.startsWith(`${ROOT}/`) || step.target.startsWith(`${UNIT_DIR}/`), `${what}: ${step.op} ${step.target}`);
      for (const name of PLANTED) assert.equal(step.target.split('/').includes(name), false, `${what} names the planted ${name}: ${step.target}`);
    }
  };

  before(async () => {
    host = await startTestHost({ name: 'hplanh' });
    await host.run(['sh', '-c', `mkdir -p ${VICTIM} && echo ${SECRET} > ${VICTIM}/SOUL.md && chmod 0600 ${VICTIM}/SOUL.md`]);
    runtime = { openclawPath: await installTenantGateway(host, 'plan-planter', ATTACK) };
    await ok(host, 'ensure-namespace', { namespace: who.namespace }, { runtime });
    await ok(host, 'prepare-revision', rev1, { runtime });
    await ok(host, 'activate-revision', activateArgs(rev1), { runtime });
    await ok(host, 'prepare-revision', rev2, { runtime });
    assert.equal((await host.exec(['test', '-p', `${layout.state}/workspace/AGENTS.md`])).code, 0, 'the gateway planted its FIFO');
    assert.equal((await host.exec(['test', '-e', `${layout.state}/planted.json`])).code, 0, 'the gateway planted everything');
  });
  after(() => host?.down());

  test('plans of every later operation change nothing and name nothing the gateway planted', async () => {
    const before = await fingerprint();
    const plans = {
      activate: await plan('activate-revision', activateArgs(rev2)),
      stop: await plan('stop-revision', { owner: who, revision: rev1.revision }),
      retire: await plan('retire-revision', { owner: who, revision: rev1.revision }),
      deleteAgent: await plan('delete-agent', { owner: who }),
      deleteNamespace: await plan('delete-namespace', { namespace: who.namespace }),
    };
    assert.equal(await fingerprint(), before, 'planning changed nothing, the victim and /etc/shadow included');
    for (const [what, planned] of Object.entries(plans)) assertContained(what, planned.steps);
    assert.ok(
      plans.deleteAgent.steps.some((s) => s.target === layout.dir),
      'deletion removes the Agent directory as one tree, without walking it',
    );
  });

  test('setup through a planted FIFO or link is refused by the plan exactly as by the real operation', async () => {
    for (const [name, content] of [
      ['AGENTS.md', '# AGENTS.md\n'],
      ['SOUL.md', '# SOUL.md\n'],
    ] as const) {
      const args = { owner: who, revision: rev2.revision, setup: { id: `plan-${name}`, completed: false, documents: [{ name, content }] } };
      const before = await fingerprint();
      const planned = await fails(host, 'plan-operation', { operation: 'setup-workspace', args } as never, { runtime });
      const real = await fails(host, 'setup-workspace', args as never, { runtime });
      assert.deepEqual({ code: planned.code, path: planned.path }, { code: 'ownership', path: `${layout.state}/workspace/${name}` }, JSON.stringify(planned));
      assert.deepEqual({ code: real.code, path: real.path, message: real.message }, { code: planned.code, path: planned.path, message: planned.message });
      assert.equal(JSON.stringify(planned).includes(SECRET), false);
      assert.equal(await fingerprint(), before, `${name}: neither the plan nor the refused setup changed anything`);
    }
  });

  test('the deletion applied is the deletion planned', async () => {
    const planned = await plan('delete-agent', { owner: who });
    await ok(host, 'delete-agent', { owner: who }, { runtime });
    assert.deepEqual(await auditedPlans('delete-agent'), [planned.digest]);
    assert.equal((await host.exec(['test', '-e', layout.dir])).code, 1);
    assert.equal((await shell(host, `cat ${VICTIM}/SOUL.md`)).trim(), SECRET, 'the link target survived the deletion');
  });
});
