// On a host of the strace variant: ensure-namespace is counted, then SIGKILLed at each of its
// mutating calls. The Namespace is built whole in a temp directory (marker included) and renamed into
// place, so a kill anywhere leaves only temps, never a Namespace without its marker, and the retry
// converges. Proves that the numbering hits the intended call on a real helper.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { helperArtifact } from '@occ-ssh/test-support';
import { crashLane, type CrashLaneResult } from './crash-points.js';
import { HostLink } from '../host/ssh.js';

describe('crash points on a real host', () => {
  let host: TestHost;
  let link: HostLink;
  let lane: CrashLaneResult;

  before(async () => {
    helperArtifact();
    host = await startTestHost({ variant: 'strace' });
    link = new HostLink(host);
    lane = await crashLane(
      link,
      { step: 1, lanes: ['helper'], operations: ['ensure-namespace'] },
      { crash: true, errors: false },
      () => undefined,
      () => undefined,
    );
  });

  after(async () => {
    await link?.close();
    await host?.down();
  });

  const TEMP_DIR = '<root>/namespaces/.#.tmp-*';
  const MARKER = `${TEMP_DIR}/.namespace.json.tmp-*`;

  it('counts the marker write inside the temp Namespace, then the rename that puts the Namespace in place', () => {
    const [counted] = lane.counts;
    const points = counted!.points.map((point) => point.what);
    for (const call of [`mkdir ${TEMP_DIR}`, `fchown ${TEMP_DIR}`, `openat ${MARKER}`, `write ${MARKER}`, `fsync ${MARKER}`, `rename ${MARKER}`, `rename ${TEMP_DIR}`]) {
      assert.ok(points.includes(call), `${call} in ${points.join(', ')}`);
    }
    assert.ok(points.indexOf(`rename ${MARKER}`) > points.indexOf(`fsync ${MARKER}`), 'the marker is renamed after its data is synced');
    assert.ok(points.indexOf(`rename ${TEMP_DIR}`) > points.indexOf(`rename ${MARKER}`), 'the Namespace appears only with its marker');
  });

  it("a SIGKILL at the marker's rename leaves only temps, no Namespace, and the retry converges", () => {
    const atRename = lane.records.find((record) => record.exact && record.point.what === `rename ${MARKER}`);
    assert.ok(atRename, 'the injection hit the rename');
    assert.equal(atRename.completedFirst, false, 'the helper was killed before its result line');
    assert.equal(atRename.effect, 'intermediate');
    assert.ok(atRename.pendingAfterFault.length > 0);
    for (const item of atRename.pendingAfterFault) assert.match(item, /\/namespaces\/\.[0-9a-f]{12}\.tmp-[0-9a-f]+(\/\.namespace\.json\.tmp-[0-9a-f]+)?: temp file of the killed write/);
    assert.deepEqual(atRename.violations, []);
    assert.equal(atRename.retry.ok, true);
    assert.deepEqual(atRename.problems, []);
  });

  it('a kill at any point converges on retry with no violation', () => {
    assert.ok(lane.records.length >= 10);
    for (const record of lane.records) {
      assert.deepEqual(record.violations, [], record.point.what);
      assert.equal(record.retry.ok, true, record.point.what);
    }
  });

  it('hits every rename, mkdir, fsync, fchown and fchmod point exactly (only write and openat numbers drift)', () => {
    const steady = lane.counts[0]!.points.filter((point) => !['write', 'openat'].includes(point.syscall));
    const hit = new Set(lane.records.filter((record) => record.exact).map((record) => `${record.point.syscall}#${record.point.when}`));
    const missed = steady.filter((point) => !hit.has(`${point.syscall}#${point.when}`));
    assert.deepEqual(
      missed.map((point) => point.what),
      [],
    );
    assert.ok(steady.length >= 10, `${steady.length} steady points`);
  });
});
