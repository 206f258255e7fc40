// The kernel's socket tables, parsed: listeners, their owners and addresses.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { listenersOn, parseListeners, parseSs, socketInodesOf, streamListeners } from './listeners.js';
import { hostRunner } from '../run/system.js';

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

describe('parseSs', () => {
  it('reads the local address, owner UID and inode of each listener ss names, root when it prints no uid', () => {
    const output = [
      '0      511    127.0.0.1:18800      0.0.0.0:*    uid:998 ino:41234 sk:1 cgroup:/system.slice/x.service <->',
      '0      511        [::1]:18800         [::]:*    uid:998 ino:41250 sk:2 <->',
      '0      4096   127.0.0.1%lo:18801   0.0.0.0:*    ino:1201 sk:3 <->',
      '',
    ].join('\n');
    assert.deepEqual(parseSs(output), [
      { address: '127.0.0.1', port: 18800, uid: 998, inode: 41234 },
      { address: '[::1]', port: 18800, uid: 998, inode: 41250 },
      { address: '127.0.0.1%lo', port: 18801, uid: 0, inode: 1201 },
    ]);
    assert.deepEqual(parseSs(''), []);
  });

  it('refuses the whole answer when one line does not parse: a skipped listener could be a squatter', () => {
    assert.equal(parseSs('0 511 127.0.0.1:18800 0.0.0.0:* uid:998 ino:41234\n0 511 garbage\n'), undefined);
    assert.equal(parseSs('0 511 127.0.0.1:18800 0.0.0.0:* uid:998\n'), undefined);
  });
});

describe('socketInodesOf', () => {
  it('finds no socket of the unit under a control group path systemd would never report', async () => {
    for (const controlGroup of ['system.slice/x.service', '/system.slice/../../etc', '/system.slice/x y.service']) {
      const found = await socketInodesOf({ controlGroup, mainPid: process.pid, wanted: new Set([1]), deadline: Date.now() + 1000 });
      assert.ok(found === undefined || (found instanceof Set && found.size === 0), controlGroup);
    }
  });
});

describe('listenersOn', () => {
  it('finds a real listener through ss and by streaming /proc/net/tcp, with the same owner and inode', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const streamed = await streamListeners('/proc/net/tcp', port, Date.now() + 5000);
      assert.ok(Array.isArray(streamed) && streamed.length === 1, JSON.stringify(streamed));
      assert.deepEqual(streamed[0], { address: '127.0.0.1', port, uid: process.getuid?.() ?? 0, inode: streamed[0]!.inode });
      assert.deepEqual(await listenersOn(hostRunner, port, Date.now() + 5000), streamed);
    } finally {
      server.close();
    }
  });

  it('stops streaming at its deadline and says the bound was hit', async () => {
    const result = await streamListeners('/proc/net/tcp', 1, Date.now() - 1);
    assert.ok('exceeded' in result && /too large to read within the listener check's bound/.test(result.exceeded), JSON.stringify(result));
  });
});
