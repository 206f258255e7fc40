// Host addresses: hostnames and IP literals pass; anything ssh could misread is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostAddressProblem } from './address.js';

const HOSTNAME = 'expected a hostname of dot-separated labels (letters, digits, inner hyphens; 1-63 characters each) or an IP address';

describe('hostAddressProblem', () => {
  it('accepts hostnames, IPv4 and IPv6 literals', () => {
    for (const address of ['203.0.113.10', 'localhost', 'gw-1.eu.example.com', 'A1.example', '::1', '2001:db8::10', '::ffff:192.0.2.1', `${'a'.repeat(63)}.example`]) {
      assert.equal(hostAddressProblem(address), undefined, address);
    }
  });

  it('refuses what would change the meaning of the ssh command', () => {
    const refused: [string, string][] = [
      ['', 'must not be empty'],
      ['host name', 'must not contain whitespace'],
      ['host\n-oProxyCommand=x', 'must not contain whitespace'],
      ['-oProxyCommand=x', 'must not start with "-" (ssh would read it as an option)'],
      ['root@host', HOSTNAME],
      ['host;reboot', HOSTNAME],
      ['host:22', 'expected an IPv6 address without brackets or zone'],
      ['[::1]', 'expected an IPv6 address without brackets or zone'],
      ['2001:db8::1%eth0', 'expected an IPv6 address without brackets or zone'],
      ['host.', HOSTNAME],
      ['-host.example', 'must not start with "-" (ssh would read it as an option)'],
      ['host-.example', HOSTNAME],
      ['under_score.example', HOSTNAME],
      [`${'a'.repeat(64)}.example`, HOSTNAME],
      ['203.0.113.999', 'expected a valid IPv4 address or a hostname whose last label is not numeric'],
      [`${'a.'.repeat(126)}ab`, 'expected at most 253 characters'],
    ];
    for (const [address, problem] of refused) assert.equal(hostAddressProblem(address), problem, JSON.stringify(address));
  });
});
