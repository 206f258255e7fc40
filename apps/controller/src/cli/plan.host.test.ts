// occ-ssh plan on a real host: the steps it prints are the steps the real command then applies (the
// audit line's plan= digest is the plan's), planning changes nothing on the host, and a refusal is
// the real command's own.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { cliRunner } from '../../test/cli-runner.js';
import { hostInfo, installationYaml } from '../../test/hosts.js';
import { EXIT } from './main.js';

type Planned = { operation: string; steps: { op: string; target: string }[]; digest: string; after: string | null };

describe('occ-ssh plan on a real host', () => {
  let host: TestHost;
  const dir = mkdtempSync(`${tmpdir()}/occ-cli-plan-`);
  const config = `${dir}/installation.yaml`;
  const ledger = `${dir}/ledger.json`;
  const agent = ['--namespace', 'stable', '--namespace-id', 'ns-plan', '--agent-id', 'agent-plan', '--service-principal-id', 'sp-plan'];
  const revisionFile = (number: number) => {
    const path = `${dir}/rev-${number}.json`;
    writeFileSync(
      path,
      JSON.stringify({
        namespace: { id: 'ns-plan', name: 'stable' },
        agent: { id: 'agent-plan', servicePrincipal: { id: 'sp-plan' } },
        revision: { id: `rev-plan-${number}`, number, configuration: { gateway: { mode: 'local' } } },
      }),
    );
    return path;
  };
  const cli = cliRunner(config, ledger);
  const planJson = async (...argv: string[]) => {
    const result = await cli('plan', ...argv, '--json');
    assert.equal(result.code, EXIT.ok, result.out + result.err);
    return (JSON.parse(result.out) as { result: { operations: Planned[]; pending: string[] } }).result;
  };
  const auditLines = async () => (await host.run(['journalctl', '--no-pager', '-o', 'cat', '_UID=0', '_TRANSPORT=syslog', 'SYSLOG_IDENTIFIER=occ-ssh-helper'])).trim().split('\n');
  /** The plan= digests of the newest audit line of `operation`. */
  const appliedPlans = async (operation: string) => {
    const line = (await auditLines()).filter((l) => l.startsWith(`operation=${operation} outcome=ok `)).at(-1) ?? '';
    return / plan=(\S+)/.exec(line)?.[1]?.split(',') ?? [];
  };
  const tree = () => host.run(['sh', '-c', 'find /var/lib/openclaw-enterprise /etc/systemd/system -xdev -printf "%p %m %U:%G %s\\n" | sort; getent passwd | sort']);

  before(async () => {
    host = await startTestHost({ name: 'cplan' });
    writeFileSync(config, installationYaml({ stable: hostInfo(host) }));
  });
  after(() => host?.down());

  test('plan deploy on a fresh host changes nothing, stops after the Namespace steps, and deploy applies exactly them', async () => {
    const before = await tree();
    const auditBefore = (await auditLines()).length;
    const human = await cli('plan', 'deploy', '--revision', revisionFile(1));
    assert.equal(human.code, EXIT.ok, human.err);
    assert.match(human.out, /^plan deploy agent-plan revision 1 \(rev-plan-1\) to Namespace stable \(nothing is changed\)$/m);
    assert.match(human.out, /^ {4}create-dir-atomic \/var\/lib\/openclaw-enterprise\/namespaces\/\S+ \(owner=0:0 mode=0711\)$/m);
    assert.match(human.out, /then, planned once the steps above have run: prepare revision; activate$/m);
    const planned = await planJson('deploy', '--revision', revisionFile(1));
    assert.deepEqual(planned.pending, ['prepare revision', 'activate']);
    assert.equal(await tree(), before, 'planning wrote nothing');
    assert.equal((await auditLines()).length, auditBefore, 'planning is not audited as a change');

    assert.equal((await cli('deploy', '--revision', revisionFile(1))).code, EXIT.ok);
    assert.deepEqual(await appliedPlans('ensure-namespace'), [planned.operations[0]!.digest]);
  });

  test('plan deploy of a new revision lists the snapshot steps that prepare then applies', async () => {
    const planned = await planJson('deploy', '--revision', revisionFile(2));
    assert.deepEqual(
      planned.operations.map((o) => [o.operation, o.steps.some((s) => s.op === 'write-file' && s.target.includes('/revisions/'))]),
      [
        ['ensure-namespace', false],
        ['prepare-revision', true],
      ],
    );
    assert.ok(planned.operations[1]!.steps.some((s) => s.op === 'write-marker' && s.target.includes('/revisions/')));
    assert.equal((await cli('deploy', '--revision', revisionFile(2))).code, EXIT.ok);
    assert.deepEqual(await appliedPlans('prepare-revision'), [planned.operations[1]!.digest]);
  });

  test('plan of a deploy already served plans every operation and finds nothing to change but upkeep', async () => {
    const planned = await planJson('deploy', '--revision', revisionFile(2));
    assert.deepEqual(
      planned.operations.map((o) => [o.operation, o.steps.filter((s) => s.op !== 'sweep-temps' && s.op !== 'ensure-dir').length]),
      [
        ['ensure-namespace', 0],
        ['prepare-revision', 0],
        ['activate-revision', 0],
      ],
    );
    assert.match(planned.operations[2]!.after ?? '', /already serving/);
  });

  test('a refusal is printed exactly as the real command prints it', async () => {
    const wrong = [...agent.slice(0, 6), '--service-principal-id', 'sp-other', '--revision-id', 'rev-plan-2', '--revision-number', '2'];
    const plan = await cli('plan', 'stop', ...wrong, '--json');
    const real = await cli('stop', ...wrong, '--json');
    assert.equal(plan.code, EXIT.permanent);
    assert.equal(real.code, plan.code);
    const error = (text: string) => {
      const { code, failure, message, path, host: where } = (JSON.parse(text) as { error: Record<string, string> }).error;
      return { code, failure, message, path, host: where };
    };
    assert.equal(error(plan.out).code, 'ownership');
    assert.deepEqual(error(plan.out), error(real.out));
  });

  test('plan stop prints the unit and pointer steps, and stop applies exactly them', async () => {
    const human = await cli('plan', 'stop', '--revision', revisionFile(2));
    assert.match(human.out, /^ {4}stop-and-disable openclaw-enterprise-gateway-[0-9a-f]{12}\.service$/m);
    assert.match(human.out, /^ {4}remove-file \S+\/served\.json$/m);
    const planned = await planJson('stop', '--revision', revisionFile(2));
    assert.equal((await cli('stop', '--revision', revisionFile(2))).code, EXIT.ok);
    assert.deepEqual(await appliedPlans('stop-revision'), [planned.operations[0]!.digest]);
  });

  test('plan delete-agent and delete-namespace ask for no confirmation; the deletions apply exactly the plans', async () => {
    const agentPlan = await planJson('delete-agent', ...agent);
    assert.ok(agentPlan.operations[0]!.steps.some((s) => s.op === 'remove-account'));
    assert.equal((await cli('delete-agent', ...agent, '--yes')).code, EXIT.ok);
    assert.deepEqual(await appliedPlans('delete-agent'), [agentPlan.operations[0]!.digest]);
    const before = await tree();
    const nsPlan = await planJson('delete-namespace', ...agent.slice(0, 4));
    assert.equal(await tree(), before);
    assert.equal((await cli('delete-namespace', ...agent.slice(0, 4), '--yes')).code, EXIT.ok);
    assert.deepEqual(await appliedPlans('delete-namespace'), [nsPlan.operations[0]!.digest]);
  });
});
