// Reading what holds a UID: the Uid: line of a process's status and the owner columns of SysV IPC.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ipcOwnedBy, statusHasUid } from './uid-holders.js';

describe('what holds a UID', () => {
  it('a process holds the UID by any of its real, effective, saved and filesystem UIDs, and only by a whole field', () => {
    assert.equal(statusHasUid('Name:\tsleep\nUid:\t999\t999\t999\t999\nGid:\t997\t997\t997\t997\n', 999), true);
    assert.equal(statusHasUid('Name:\tsetpriv\nUid:\t0\t0\t999\t0\n', 999), true);
    assert.equal(statusHasUid('Name:\tx\nUid:\t9990\t0\t0\t0\nGid:\t999\t999\t999\t999\n', 999), false);
    assert.equal(statusHasUid('Name:\tx\n', 999), false);
  });

  it("IPC objects are the UID's when it owns or created them, read by the header names", () => {
    const shm = [
      '       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap',
      '  12345678          3   644                  4096   999     0      0   999   997   999   997          0          0 1700000000                     0                     0',
      '  12345679          4   644                  4096   999     0      0     0     0     0     0          0          0 1700000000                     0                     0',
      '  12345680          5   644                  4096   100     0      0     0     0   999   997          0          0 1700000000                     0                     0',
    ].join('\n');
    assert.deepEqual(ipcOwnedBy(shm, 'shm', 999), [3, 5]);
    const sem = ['       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime', '         0          2   600          1   999   997   999   997          0 1700000000'].join(
      '\n',
    );
    assert.deepEqual(ipcOwnedBy(sem, 'sem', 999), [2]);
    assert.deepEqual(ipcOwnedBy(sem, 'sem', 998), []);
    assert.throws(() => ipcOwnedBy('key id\n1 2', 'msg', 999), { code: 'host-requirement' });
  });
});
