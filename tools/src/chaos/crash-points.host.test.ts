// On a host of the strace variant: ensure-namespace is counted, then SIGKILLed at each of its
// mutating calls; a kill at the marker's rename leaves the temp file and no marker, and the retry
// converges. Proves that the numbering hits the intended call on a real helper.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestHost, type TestHost } from '../testhost/index.js';
import { helperArtifact } from './ops.js';
import { crashLane, type CrashLaneResult } from './crash-points.js';
import { HostLink } from './ssh.js';

describe('crash points on a real host', () => {
  let host: TestHost;
  let link: HostLink;
  let lane: CrashLaneResult;

  before(async () => {
    helperArtifact();
    host = await startTestHost({ variant: 'strace' });
    link = new HostLink(host);
    lane = await crashLane(link, { step: 1, lanes: ['helper'], operations: ['ensure-namespace'] }, { crash: true, errors: false }, () => undefined, () => undefined);
  });

  after(async () => {
    await link?.close();
    await host?.down();
  });

  it('counts the Namespace marker write as temp file, fsync, rename and directory fsync', () => {
    const [counted] = lane.counts;
    const points = counted!.points.map((point) => point.what);
    const temp = '<root>/namespaces/#/.namespace.json.tmp-*';
    for (const call of [`openat ${temp}`, `write ${temp}`, `fsync ${temp}`, `rename ${temp}`]) assert.ok(points.includes(call), `${call} in ${points.join(', ')}`);
    assert.ok(points.indexOf(`rename ${temp}`) > points.indexOf(`fsync ${temp}`), 'the rename comes after the data is synced');
  });

  it('a SIGKILL at the rename leaves the temp file and no marker, and the retry converges', () => {
    const atRename = lane.records.find((record) => record.exact && record.point.what === 'rename <root>/namespaces/#/.namespace.json.tmp-*');
    assert.ok(atRename, 'the injection hit the rename');
    assert.equal(atRename.completedFirst, false, 'the helper was killed before its result line');
    assert.equal(atRename.effect, 'intermediate');
    assert.ok(atRename.pendingAfterFault.some((item) => item.includes('.namespace.json.tmp-') && item.includes('temp file of the killed write')), atRename.pendingAfterFault.join('; '));
    assert.ok(atRename.pendingAfterFault.some((item) => item.includes('Namespace directory without its marker yet')));
    assert.deepEqual(atRename.violations, []);
    assert.equal(atRename.retry.ok, true);
    assert.deepEqual(atRename.problems, []);
  });

  it('hits every rename, mkdir, fsync, fchown and fchmod point exactly (only write and openat numbers drift)', () => {
    const steady = lane.counts[0]!.points.filter((point) => !['write', 'openat'].includes(point.syscall));
    const hit = new Set(lane.records.filter((record) => record.exact).map((record) => `${record.point.syscall}#${record.point.when}`));
    const missed = steady.filter((point) => !hit.has(`${point.syscall}#${point.when}`));
    assert.deepEqual(missed.map((point) => point.what), []);
    assert.ok(steady.length >= 10, `${steady.length} steady points`);
  });
});
