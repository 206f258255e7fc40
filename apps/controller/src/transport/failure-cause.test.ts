// The cause of a transport failure, read from OpenSSH's own messages and from socket error codes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CAUSE_ADVICE, TRANSPORT_CAUSES, socketErrorCause, sshStderrCause } from './failure-cause.js';

describe('sshStderrCause', () => {
  // Messages as OpenSSH 9 prints them with LogLevel=ERROR.
  const cases: [string, string][] = [
    ['No ED25519 host key is known for 10.213.4.2 and you have requested strict checking.\r\nHost key verification failed.\r\n', 'host-key'],
    ['@@@@@@@@@@@@@@@@\r\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n', 'host-key'],
    ['root@10.213.4.2: Permission denied (publickey).\r\n', 'authentication'],
    ['Load key "/etc/openclaw/ssh/id_ed25519": bad permissions\r\nroot@h: Permission denied (publickey).\r\n', 'authentication'],
    ['ssh: connect to host 10.213.4.2 port 22: Connection timed out\r\n', 'timeout'],
    ['Connection timed out during banner exchange\r\nConnection to 127.0.0.1 port 4022 timed out\r\n', 'timeout'],
    ['ssh: connect to host 127.0.0.1 port 4022: Connection refused\r\n', 'refused'],
    ['ssh: connect to host 10.213.254.2 port 22: No route to host\r\n', 'no-route'],
    ['ssh: Could not resolve hostname gw.example: Name or service not known\r\n', 'dns'],
    ['kex_exchange_identification: Connection closed by remote host\r\nConnection closed by 10.213.4.2 port 22\r\n', 'connection-closed'],
    ['client_loop: send disconnect: Broken pipe\r\n', 'connection-closed'],
    ['', 'unknown'],
    ['mux_client_request_session: session request failed\r\n', 'unknown'],
  ];
  for (const [text, cause] of cases) test(`${cause}: ${text.split('\r\n')[0] || '(nothing)'}`, () => assert.equal(sshStderrCause(text), cause));
});

describe('socketErrorCause', () => {
  test('errno names map to causes', () => {
    assert.deepEqual(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EPIPE', 'EWHATEVER', undefined].map(socketErrorCause), [
      'refused',
      'timeout',
      'no-route',
      'no-route',
      'dns',
      'dns',
      'connection-closed',
      'connection-closed',
      'unknown',
      'unknown',
    ]);
  });

  test('every cause tells the operator what to check', () => {
    for (const cause of TRANSPORT_CAUSES) assert.match(CAUSE_ADVICE[cause], /check|collect|run ssh/);
  });
});
