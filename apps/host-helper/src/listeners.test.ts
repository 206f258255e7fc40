// The kernel's socket tables, parsed: listeners, their owners and addresses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseListeners, socketInodesOf } from './listeners.js';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:4970 00000000:0000 0A 00000000:00000000 00:00000000 00000000   998        0 41234 1 0000000000000000 100 0 0 10 0
   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1201 1 0000000000000000 100 0 0 10 0
   2: 0100007F:4970 0100007F:C350 01 00000000:00000000 00:00000000 00000000   998        0 41300 1 0000000000000000 20 4 30 10 -1
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:4970 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 41250 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1203 1 0000000000000000 100 0 0 10 0
`;

describe('parseListeners', () => {
  it('reads listening IPv4 sockets with port, owner UID and inode, skipping connections', () => {
    assert.deepEqual(parseListeners(TCP, true), [
      { address: '127.0.0.1', port: 18800, uid: 998, inode: 41234 },
      { address: '0.0.0.0', port: 22, uid: 0, inode: 1201 },
    ]);
  });

  it('reads IPv6 listeners, word by word in host byte order', () => {
    assert.deepEqual(parseListeners(TCP6, true), [
      { address: '[::1]', port: 18800, uid: 1001, inode: 41250 },
      { address: '[::]', port: 22, uid: 0, inode: 1203 },
    ]);
    assert.equal(parseListeners(TCP.replace('0100007F:4970 00000000:0000 0A', '7F000001:4970 00000000:0000 0A'), false)[0]?.address, '127.0.0.1');
  });

  it('ignores malformed lines instead of inventing listeners', () => {
    assert.deepEqual(parseListeners('header\n0: zz:4970 00000000:0000 0A 0 0 0 998 0 1\n\n   1: 0100007F:4970 00000000:0000 0A\n', true), []);
  });
});

describe('socketInodesOf', () => {
  it('finds no socket of the unit under a control group path systemd would never report', () => {
    for (const path of ['system.slice/x.service', '/system.slice/../../etc', '/system.slice/x y.service']) {
      assert.equal(socketInodesOf(path)?.size ?? 0, 0, path);
    }
  });
});
