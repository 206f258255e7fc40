// Agent account IDs: the range they come from (login.defs as shadow reads it, or the Installation's),
// how many are left, and the capacity refusal that comes before any change when none is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ComputeError } from '@occ-ssh/protocol';
import { accountIdRanges, freeAccountIds, idsIn, loginDefs, refuseWithoutAccountIds } from './account-ids.js';

const DEBIAN_DEFS = 'UID_MIN\t\t\t 1000\nUID_MAX\t\t\t60000\n#SYS_UID_MIN\t\t  100\n#SYS_UID_MAX\t\t  999\nGID_MIN\t\t\t 1000\n';
const files = (files: Record<string, string>) => (path: string) => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  return text;
};
const passwd = (uids: number[]) => uids.map((uid) => `u${uid}:x:${uid}:${uid}::/:/usr/sbin/nologin`).join('\n');
const group = (gids: number[]) => gids.map((gid) => `g${gid}:x:${gid}:`).join('\n');

describe('Agent account IDs', () => {
  it("reads login.defs as shadow does: comments skipped, shadow's defaults where it is silent or missing", () => {
    assert.deepEqual(
      [...loginDefs('# c\nSYS_UID_MIN 500\n  SYS_UID_MAX\t600 # trailing\nSYS_UID_MIN 700\n')],
      [
        ['SYS_UID_MIN', '700'],
        ['SYS_UID_MAX', '600'],
      ],
    );
    const debian = accountIdRanges({}, () => DEBIAN_DEFS);
    assert.deepEqual(debian.uid, { start: 101, end: 999, from: '/etc/login.defs SYS_UID_MIN-SYS_UID_MAX' });
    assert.deepEqual(debian.gid, { start: 101, end: 999, from: '/etc/login.defs SYS_GID_MIN-SYS_GID_MAX' });
    const set = accountIdRanges({}, () => 'SYS_UID_MIN 900\nSYS_UID_MAX 950\nGID_MIN 500\n');
    assert.deepEqual([set.uid.start, set.uid.end, set.gid.start, set.gid.end], [900, 950, 101, 499]);
    const missing = accountIdRanges({}, () => {
      throw new Error('ENOENT');
    });
    assert.deepEqual([missing.uid.start, missing.uid.end], [101, 999]);
  });

  it("an Installation's range stands for both UIDs and GIDs, whatever login.defs says", () => {
    const ranges = accountIdRanges({ accountIdRange: { start: 20000, end: 20999 } }, () => 'SYS_UID_MIN 900\n');
    assert.deepEqual(ranges.uid, { start: 20000, end: 20999, from: 'runtime.accountIdRange' });
    assert.deepEqual(ranges.gid, ranges.uid);
  });

  it('counts the IDs of the range the local files do not give out', () => {
    assert.deepEqual([...idsIn('root:x:0:0::/root:/bin/sh\n\nbad line\nx:x:notanumber:1\nsvc:x:105:105::/:/bin/false\n')], [0, 105]);
    const read = files({
      '/etc/login.defs': 'SYS_UID_MIN 100\nSYS_UID_MAX 109\nSYS_GID_MIN 100\nSYS_GID_MAX 104\n',
      '/etc/passwd': passwd([0, 100, 101, 1000]),
      '/etc/group': group([0, 100, 103, 104]),
    });
    const free = freeAccountIds({}, read);
    assert.deepEqual([free.freeUids, free.freeGids], [8, 2]);
  });

  it('refuses a new account with a retryable capacity error naming the range and where it comes from, and only for what it needs', () => {
    const full = files({ '/etc/login.defs': 'SYS_UID_MIN 100\nSYS_UID_MAX 101\n', '/etc/passwd': passwd([100, 101]), '/etc/group': group([]) });
    assert.throws(
      () => refuseWithoutAccountIds({}, { gid: true }, full),
      (error: ComputeError) => {
        assert.deepEqual([error.code, error.retryable, error.details?.key], ['capacity', true, 'runtime.accountIdRange']);
        assert.equal(
          error.message,
          'no free UID left for a new Agent account in 100-101 (/etc/login.defs SYS_UID_MIN-SYS_UID_MAX): set runtime.accountIdRange to make Agent accounts in a larger range, or delete an Agent on this host',
        );
        return true;
      },
    );
    const noGids = files({ '/etc/login.defs': '', '/etc/passwd': passwd([]), '/etc/group': group([20000, 20001]) });
    const range = { accountIdRange: { start: 20000, end: 20001 } };
    assert.throws(
      () => refuseWithoutAccountIds(range, { gid: true }, noGids),
      /^ComputeError: no free GID left for a new Agent account in 20000-20001 \(runtime\.accountIdRange\): widen runtime\.accountIdRange/,
    );
    // A group an interrupted creation left is reused: only a UID is needed then.
    assert.doesNotThrow(() => refuseWithoutAccountIds(range, { gid: false }, noGids));
  });
});
