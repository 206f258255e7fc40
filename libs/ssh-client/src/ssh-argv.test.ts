// The system ssh client's argv: strict, explicit and identical for every invocation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JUMP_ALIAS, jumpHostConfig, masterExitOptions, multiplexOptions, sshArgv, sshOptions, type SshClientSettings } from './ssh-argv.js';

const SETTINGS: SshClientSettings = { identityFile: '/etc/openclaw/ssh/id_ed25519', knownHostsFile: '/etc/openclaw/ssh/known_hosts', connectTimeoutSeconds: 10 };
const HOST = { name: 'web-1', address: '203.0.113.10', port: 22, user: 'root' };
const COMMAND = '/usr/bin/node - eyJhIjoxfQ==';

describe('sshArgv', () => {
  it('is exactly the strict argv for a known host and settings', () => {
    assert.deepEqual(sshArgv(SETTINGS, HOST, COMMAND), [
      '-F',
      'none',
      '-T',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'IdentityFile=/etc/openclaw/ssh/id_ed25519',
      '-o',
      'UserKnownHostsFile=/etc/openclaw/ssh/known_hosts',
      '-o',
      'GlobalKnownHostsFile=/dev/null',
      '-o',
      'UpdateHostKeys=no',
      '-o',
      'ConnectTimeout=10',
      '-o',
      'LogLevel=ERROR',
      '-o',
      'ForwardAgent=no',
      '-o',
      'ForwardX11=no',
      '-o',
      'ClearAllForwardings=yes',
      '-o',
      'PasswordAuthentication=no',
      '-o',
      'KbdInteractiveAuthentication=no',
      '-o',
      'ServerAliveInterval=15',
      '-o',
      'ServerAliveCountMax=3',
      '-p',
      '22',
      '-l',
      'root',
      '--',
      '203.0.113.10',
      '/usr/bin/node - eyJhIjoxfQ==',
    ]);
  });

  it('follows the host port, address and connect timeout', () => {
    const argv = sshArgv({ ...SETTINGS, connectTimeoutSeconds: 3 }, { name: 'edge', address: 'host-7.example.net', port: 2222, user: 'root' }, COMMAND);
    assert.ok(argv.includes('ConnectTimeout=3'));
    assert.deepEqual(argv.slice(-7), ['-p', '2222', '-l', 'root', '--', 'host-7.example.net', COMMAND]);
  });

  it('puts extra arguments among the options, before the port, user and the end of options', () => {
    const argv = sshArgv(SETTINGS, HOST, COMMAND, ['-o', 'ControlMaster=no']);
    assert.deepEqual(argv.slice(-9), ['-o', 'ControlMaster=no', '-p', '22', '-l', 'root', '--', '203.0.113.10', COMMAND]);
  });

  it('keeps an address that looks like an option after "--", and the command last as one argument', () => {
    const argv = sshArgv(SETTINGS, { ...HOST, address: '-oProxyCommand=touch /tmp/x' }, 'a b; c');
    const end = argv.indexOf('--');
    assert.equal(argv[end + 1], '-oProxyCommand=touch /tmp/x');
    assert.equal(argv.at(-1), 'a b; c');
    assert.equal(argv.length, end + 3);
    assert.equal(argv.filter((arg) => arg === '--').length, 1);
  });

  it('renders a remote argv as one quoted command line, and ends at the address without a command', () => {
    assert.equal(sshArgv(SETTINGS, HOST, ['/usr/bin/node', '-', 'eyJhIjoxfQ==']).at(-1), COMMAND);
    assert.equal(sshArgv(SETTINGS, HOST, ['cat', '/etc/a b']).at(-1), "cat '/etc/a b'");
    const control = sshArgv(SETTINGS, { address: '203.0.113.10', port: 22, user: 'jump' }, undefined, ['-O', 'exit']);
    assert.deepEqual(control.slice(-8), ['-O', 'exit', '-p', '22', '-l', 'jump', '--', '203.0.113.10']);
  });

  it('takes the keepalive interval as an option, 15 s unless given, and nothing else moves', () => {
    const fast = sshArgv({ ...SETTINGS, serverAliveIntervalSeconds: 5 }, HOST, COMMAND);
    const usual = sshArgv(SETTINGS, HOST, COMMAND);
    assert.ok(usual.includes('ServerAliveInterval=15'));
    assert.deepEqual(
      fast,
      usual.map((arg) => (arg === 'ServerAliveInterval=15' ? 'ServerAliveInterval=5' : arg)),
    );
  });

  it("names a jump host's config file with -F and -J instead of -F none", () => {
    const argv = sshArgv(SETTINGS, HOST, COMMAND, [], { path: '/tmp/occ-ssh-jump-x/ssh_config' });
    assert.deepEqual(argv.slice(0, 5), ['-F', '/tmp/occ-ssh-jump-x/ssh_config', '-J', JUMP_ALIAS, '-T']);
  });

  it('every option is passed as its own -o pair', () => {
    const options = sshOptions(SETTINGS);
    assert.equal(options.length % 2, 0);
    for (let i = 0; i < options.length; i += 2) assert.equal(options[i], '-o');
  });
});

describe('jumpHostConfig', () => {
  const JUMP = { ...SETTINGS, jumpHost: { address: '198.51.100.7', port: 2200, user: 'jump' } };

  it('is an ssh_config Host block with the same strict options as every connection', () => {
    const text = jumpHostConfig(JUMP);
    assert.equal(text.split('\n')[0], `Host ${JUMP_ALIAS}`);
    assert.match(text, /^ {2}HostName 198\.51\.100\.7\n {2}Port 2200\n {2}User jump\n/m);
    for (const option of sshOptions(SETTINGS).filter((_, i) => i % 2 === 1)) assert.ok(text.includes(`\n  ${option.replace('=', ' ')}\n`), option);
  });
});

describe('multiplexing', () => {
  it('shares one connection per socket, the master outliving its last client by the given seconds', () => {
    assert.deepEqual(multiplexOptions('/run/occ/mux/%C', 60), ['-o', 'ControlMaster=auto', '-o', 'ControlPath=/run/occ/mux/%C', '-o', 'ControlPersist=60']);
  });

  it('asks the master at a socket to exit with a control command and no remote command', () => {
    const argv = sshArgv(SETTINGS, HOST, undefined, masterExitOptions('/run/occ/mux/a'));
    assert.equal(argv.slice(-10).join(' '), '-o ControlPath=/run/occ/mux/a -O exit -p 22 -l root -- 203.0.113.10');
  });
});
