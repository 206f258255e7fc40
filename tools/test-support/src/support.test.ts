// The pure parts of test support: the log line sink and the wire form of refused text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sealOperation } from '@occ-ssh/helper-call';
import { PROTOCOL_VERSION, encodeArgument } from '@occ-ssh/protocol';
import { lineSink } from './log-lines.js';
import { envelopeFor, wireFor } from './remote.js';
import { connectionOptions, sshCallArgv } from './ssh-call.js';

describe('lineSink', () => {
  it('hands over each complete line once, across chunk boundaries, and skips blank ones', async () => {
    const lines: string[] = [];
    const sink = lineSink((line) => lines.push(line));
    for (const chunk of ['{"a":1}\n{"b"', ':2}\n\n', '{"c":3}\n']) await new Promise<void>((resolve) => sink.write(chunk, () => resolve()));
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  });
});

const unused = () => Promise.reject(new Error('no host in a unit test'));

describe('wireFor', () => {
  it('seals accepted text as the controller does, and refused text with sealRaw', () => {
    const host = {
      address: '192.0.2.10',
      port: 22,
      user: 'root',
      identityFile: '/k',
      knownHostsFile: '/kh',
      nodePath: '/usr/bin/node',
      fixtureGatewayPath: '/usr/bin/fixture',
      exec: unused,
      run: unused,
    };
    const text = encodeArgument(envelopeFor(host, 'probe', {}));
    assert.deepEqual(wireFor(text), sealOperation(text));
    const refused = wireFor('not base64 at all');
    const header = JSON.parse(Buffer.from(refused.argument, 'base64').toString('utf8')) as { protocolVersion: number; sealed: { bytes: number } };
    assert.deepEqual([header.protocolVersion, header.sealed.bytes], [PROTOCOL_VERSION, 'not base64 at all'.length]);
    assert.match(refused.prelude, /"not base64 at all";\n$/);
  });
});

describe('sshCallArgv', () => {
  it("is the product strict argv, with the host's own keepalive interval when it has one", () => {
    const host = { address: '192.0.2.10', port: 22, user: 'root', identityFile: '/k', knownHostsFile: '/kh' };
    assert.ok(sshCallArgv(host, 'true').includes('ServerAliveInterval=15'));
    const fast = sshCallArgv({ ...host, serverAliveIntervalSeconds: 5 }, undefined, ['-O', 'exit']);
    assert.ok(fast.includes('ServerAliveInterval=5'));
    assert.deepEqual(fast.slice(-8), ['-O', 'exit', '-p', '22', '-l', 'root', '--', '192.0.2.10']);
  });
});

describe('connectionOptions', () => {
  const host = { address: '192.0.2.10', port: 22, user: 'root', identityFile: '/k', knownHostsFile: '/kh', sharedConnectionOptions: ['-o', 'ControlPath=/h/mux'] };

  it("puts a call on the host's shared connection unless its client is killed, watched, given options or asked to be alone", () => {
    assert.deepEqual(connectionOptions(host, {}), ['-o', 'ControlPath=/h/mux']);
    assert.deepEqual(connectionOptions(host, { input: 'x', timeoutMs: 1000 }), ['-o', 'ControlPath=/h/mux']);
    for (const alone of [{ killAfterMs: 10 }, { killAfterLines: 1 }, { onSpawn: () => undefined }, { ownConnection: true }])
      assert.deepEqual(connectionOptions(host, alone), [], JSON.stringify(alone));
    assert.deepEqual(connectionOptions(host, { extra: ['-O', 'exit'] }), ['-O', 'exit']);
    assert.deepEqual(connectionOptions({ ...host, sharedConnectionOptions: undefined }, {}), []);
  });
});
