// The host-pressure attacks of the hostile-tenants section, run once each on a real host with the quick
// campaign's sizes: each sets up, lands (the sibling's stop sent while the deletion removes, stopped
// processes seen, journal entries under way) and produces every figure its target is judged on. Whether
// the targets are met is the campaign's verdict on the helper, printed here, not asserted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { helperArtifact } from '@occ-ssh/test-support';
import { runJournalFlood, runPlantedNames, runStopper } from './pressure.js';
import { pressureTargets } from './pressure-judge.js';
import { QUICK } from '../campaign/sizes.js';
import { HostLink } from '../host/ssh.js';
import { Tenant } from '../hostile-tenants/tenant-calls.js';

describe('host-pressure attacks, on a real host', { timeout: 20 * 60_000 }, () => {
  let host: TestHost;
  let link: HostLink;
  const calm = new Tenant('calm', 'calm');

  before(async () => {
    helperArtifact();
    host = await startTestHost({ name: 'cpressure' });
    link = new HostLink(host);
  });

  after(async () => {
    await link?.close();
    await host?.down();
  });

  const verdict = (index: number, result: object) => {
    const target = pressureTargets({ ...result })[index]!;
    process.stderr.write(`# ${target.met ? 'met' : 'MISSED'}: ${target.name}\n#   ${target.detail}\n`);
  };

  it('planted names: the sibling stop is sent while the deletion removes them, both answer', async () => {
    const planted = await runPlantedNames(link, calm, new Tenant('planter', 'planter'), QUICK.tenantPlantedNames);
    verdict(0, { planted });
    assert.deepEqual(planted.problems, []);
    assert.equal(planted.planted?.names, QUICK.tenantPlantedNames);
    assert.equal(planted.landed, true, 'the stop was sent before the deletion answered');
    assert.ok(planted.idleStop?.ok && planted.deletion?.ok && planted.stop?.ok, JSON.stringify(planted));
  });

  it('the stopper: both redeploys are measured and its UID is listed', async () => {
    const stopper = await runStopper(link, calm, new Tenant('stopper', 'stopper'));
    verdict(1, { stopper });
    assert.deepEqual(stopper.problems, []);
    assert.ok(stopper.quietRedeploy?.ok, JSON.stringify(stopper.quietRedeploy));
    assert.ok(stopper.redeploy, 'the stopper was redeployed');
    assert.equal((await host.exec(['pgrep', '-u', new Tenant('stopper', 'stopper').account])).code, 1, 'nothing of the stopper is left after the attack');
  });

  it('the journal flood: entries are under way while the sibling answers, both samples taken', async () => {
    const flood = await runJournalFlood(link, new Tenant('logger', 'calm'), new Tenant('flooder', 'flooder'), QUICK.tenantFloodEntryMiB, QUICK.tenantFloodSampleMs);
    verdict(2, { flood });
    assert.deepEqual(flood.problems, []);
    assert.ok(flood.entriesStarted > 0, 'the flood landed');
    assert.ok((flood.idle?.requests ?? 0) > 0 && (flood.flooded?.requests ?? 0) > 0, JSON.stringify(flood));
  });
});
