// Refused SSH Compute settings: each names the full key path, a plain reason, the value and its line.
import { describe, it } from 'node:test';
import { assertRefusal, CONFIG_KEY, seedWith, type RefusalCase } from '../../test/config-fixtures.js';

/** One edit of the seed, refused at `key` with exactly `line`. */
const refused = (name: string, from: string, to: string, key: string, rest: string): RefusalCase => ({
  name,
  text: seedWith([from, to]),
  key,
  line: `${key}: ${rest}`,
});

/** A path under `dir`, which the gateway unit's sandbox hides, put in place of `was` in the seed line `from`. */
const hidden = (name: string, key: string, from: string, was: string, path: string, dir: string, line: number): RefusalCase =>
  refused(name, from, from.replace(was, path), `${CONFIG_KEY}.${key}`, `is under ${dir}, which the gateway unit's sandbox hides from the gateway, got "${path}" (line ${line})`);

const PORT = '          port: 22\n';
const IDENTITY = '        identityFile: /etc/openclaw/ssh/id_ed25519\n';
const TIMEOUT = '        connectTimeoutSeconds: 10\n';
const RUNTIME_USER = '        user: openclaw\n';
const ROOT = '        root: /var/lib/openclaw-enterprise\n';
const UNITS = '        systemdUnitDirectory: /etc/systemd/system\n';
const END = '          end: 18899\n';
const OPENCLAW = '/opt/openclaw/current/dist/index.js';
const RUNTIME_NODE = '        nodePath: /usr/bin/node\n        openclawPath';
const RUNTIME_OPENCLAW = `        openclawPath: ${OPENCLAW}\n        user`;
const ADDRESS = '          address: 203.0.113.10\n';
const HOST_BLOCK = `        stable:\n${ADDRESS}${PORT}          user: root\n          nodePath: /usr/bin/node\n          openclawPath: /opt/openclaw/current/dist/index.js\n`;

const PATH_CHARACTERS = 'must use only letters, digits and the characters . _ + @ , = - between slashes';
const INTEGER_PORT = 'expected an integer from 1 to 65535';
const INTEGER_TIMEOUT = 'expected an integer from 1 to 300';

const CASES: RefusalCase[] = [
  // Unknown keys, at every depth.
  refused(
    'unknown jumpHost key',
    TIMEOUT,
    `${TIMEOUT}        jumpHost:\n          address: 198.51.100.7\n          user: jump\n          proxy: x\n`,
    `${CONFIG_KEY}.ssh.jumpHost.proxy`,
    'unknown key (line 12)',
  ),
  refused(
    'jumpHost address with an option',
    TIMEOUT,
    `${TIMEOUT}        jumpHost:\n          address: -oProxyCommand=sh\n          user: jump\n`,
    `${CONFIG_KEY}.ssh.jumpHost.address`,
    'must not start with "-" (ssh would read it as an option), got "-oProxyCommand=sh" (line 10)',
  ),
  refused(
    'jumpHost user with a space',
    TIMEOUT,
    `${TIMEOUT}        jumpHost:\n          address: 198.51.100.7\n          user: a b\n`,
    `${CONFIG_KEY}.ssh.jumpHost.user`,
    'expected a login name: lower-case letters, digits, _ and -, starting with a letter or _, got "a b" (line 11)',
  ),
  refused('jumpHost without a user', TIMEOUT, `${TIMEOUT}        jumpHost:\n          address: 198.51.100.7\n`, `${CONFIG_KEY}.ssh.jumpHost.user`, 'is required (line 9)'),
  refused('unknown top-level setting', END, `${END}      transprt: ssh2\n`, `${CONFIG_KEY}.transprt`, 'unknown key (line 26)'),
  refused('unknown ssh key', TIMEOUT, '        connectTimeout: 10\n', `${CONFIG_KEY}.ssh.connectTimeout`, 'unknown key (line 8)'),
  refused('unknown host key', PORT, '          portt: 22\n', `${CONFIG_KEY}.hosts.stable.portt`, 'unknown key (line 12)'),
  refused('unknown runtime key', RUNTIME_USER, `${RUNTIME_USER}        group: openclaw\n`, `${CONFIG_KEY}.runtime.group`, 'unknown key (line 20)'),
  refused('unknown range key', END, `${END}          step: 1\n`, `${CONFIG_KEY}.network.gatewayPortRange.step`, 'unknown key (line 26)'),
  refused('unknown network key', '      network:\n', '      network:\n        bind: 0.0.0.0\n', `${CONFIG_KEY}.network.bind`, 'unknown key (line 23)'),
  refused('unknown compute key', '    id: compute-ssh\n', '    id: compute-ssh\n    version: 2\n', 'drivers.compute.version', 'unknown key (line 4)'),
  // ssh
  refused('timeout 0', TIMEOUT, '        connectTimeoutSeconds: 0\n', `${CONFIG_KEY}.ssh.connectTimeoutSeconds`, `${INTEGER_TIMEOUT}, got 0 (line 8)`),
  refused('timeout 1.5', TIMEOUT, '        connectTimeoutSeconds: 1.5\n', `${CONFIG_KEY}.ssh.connectTimeoutSeconds`, `${INTEGER_TIMEOUT}, got 1.5 (line 8)`),
  refused('timeout as a string', TIMEOUT, '        connectTimeoutSeconds: "10"\n', `${CONFIG_KEY}.ssh.connectTimeoutSeconds`, `${INTEGER_TIMEOUT}, got "10" (line 8)`),
  refused('timeout 301', TIMEOUT, '        connectTimeoutSeconds: 301\n', `${CONFIG_KEY}.ssh.connectTimeoutSeconds`, `${INTEGER_TIMEOUT}, got 301 (line 8)`),
  refused('relative identity file', IDENTITY, '        identityFile: id_ed25519\n', `${CONFIG_KEY}.ssh.identityFile`, 'expected an absolute path, got "id_ed25519" (line 6)'),
  refused('identity file as a number', IDENTITY, '        identityFile: 7\n', `${CONFIG_KEY}.ssh.identityFile`, 'expected a string, got 7 (line 6)'),
  refused(
    'known-hosts path with a space',
    '        knownHostsFile: /etc/openclaw/ssh/known_hosts\n',
    '        knownHostsFile: /etc/openclaw/ssh/known hosts\n',
    `${CONFIG_KEY}.ssh.knownHostsFile`,
    'must not contain whitespace, got "/etc/openclaw/ssh/known hosts" (line 7)',
  ),
  refused(
    'known-hosts file equal to the identity',
    '        knownHostsFile: /etc/openclaw/ssh/known_hosts\n',
    '        knownHostsFile: /etc/openclaw/ssh/id_ed25519\n',
    `${CONFIG_KEY}.ssh.knownHostsFile`,
    'must differ from ssh.identityFile, got "/etc/openclaw/ssh/id_ed25519" (line 7)',
  ),
  refused('missing ssh', `      ssh:\n${IDENTITY}        knownHostsFile: /etc/openclaw/ssh/known_hosts\n${TIMEOUT}`, '', `${CONFIG_KEY}.ssh`, 'is required (line 4)'),
  // Paths: every class of character the reference forbids.
  refused('path with a quote', IDENTITY, "        identityFile: /etc/openclaw/ssh/id'rsa\n", `${CONFIG_KEY}.ssh.identityFile`, `must not contain quotes, got "/etc/openclaw/ssh/id'rsa" (line 6)`),
  refused('path with $', ROOT, '        root: /var/lib/$HOME\n', `${CONFIG_KEY}.runtime.root`, 'must not contain systemd or shell expansion syntax (% or $), got "/var/lib/$HOME" (line 20)'),
  refused(
    'path with %',
    UNITS,
    '        systemdUnitDirectory: /etc/systemd/%i\n',
    `${CONFIG_KEY}.runtime.systemdUnitDirectory`,
    'must not contain systemd or shell expansion syntax (% or $), got "/etc/systemd/%i" (line 21)',
  ),
  refused(
    'path with ;',
    '        nodePath: /usr/bin/node\n        openclawPath',
    '        nodePath: /usr/bin/node;reboot\n        openclawPath',
    `${CONFIG_KEY}.runtime.nodePath`,
    'must not contain shell metacharacters, got "/usr/bin/node;reboot" (line 17)',
  ),
  refused(
    'path with a backtick',
    '          openclawPath: /opt/openclaw/current/dist/index.js\n',
    '          openclawPath: /opt/`id`/index.js\n',
    `${CONFIG_KEY}.hosts.stable.openclawPath`,
    'must not contain quotes, got "/opt/`id`/index.js" (line 15)',
  ),
  refused('path with a newline', ROOT, '        root: "/var/lib/open\\nclaw"\n', `${CONFIG_KEY}.runtime.root`, 'must not contain whitespace, got "/var/lib/open\\nclaw" (line 20)'),
  refused('path with ..', ROOT, '        root: /var/lib/../openclaw\n', `${CONFIG_KEY}.runtime.root`, 'must not contain . or .. segments, got "/var/lib/../openclaw" (line 20)'),
  refused('path with a colon', ROOT, '        root: /var/lib/a:b\n', `${CONFIG_KEY}.runtime.root`, `${PATH_CHARACTERS}, got "/var/lib/a:b" (line 20)`),
  refused('missing runtime nodePath', '        nodePath: /usr/bin/node\n        openclawPath', '        openclawPath', `${CONFIG_KEY}.runtime.nodePath`, 'is required (line 16)'),
  // Paths the gateway unit's sandbox hides (ProtectHome=yes, PrivateTmp=true, /dev/shm): refused here, not at activation.
  ...(['/home', '/root', '/run/user', '/tmp', '/var/tmp', '/dev/shm'] as const).flatMap((dir) => [
    hidden(`runtime nodePath under ${dir}`, 'runtime.nodePath', RUNTIME_NODE, '/usr/bin/node', `${dir}/deploy/node`, dir, 17),
    hidden(`runtime root under ${dir}`, 'runtime.root', ROOT, '/var/lib/openclaw-enterprise', `${dir}/openclaw`, dir, 20),
  ]),
  hidden('runtime root exactly /tmp', 'runtime.root', ROOT, '/var/lib/openclaw-enterprise', '/tmp', '/tmp', 20),
  hidden('runtime openclawPath under /root', 'runtime.openclawPath', RUNTIME_OPENCLAW, OPENCLAW, '/root/openclaw/openclaw.mjs', '/root', 18),
  hidden('host nodePath under /home', 'hosts.stable.nodePath', '          nodePath: /usr/bin/node\n', '/usr/bin/node', '/home/ops/.nvm/node', '/home', 14),
  hidden('host openclawPath under /var/tmp', 'hosts.stable.openclawPath', `          openclawPath: ${OPENCLAW}\n`, OPENCLAW, '/var/tmp/openclaw.mjs', '/var/tmp', 15),
  // Runtime account and layout.
  refused('runtime user root', RUNTIME_USER, '        user: root\n', `${CONFIG_KEY}.runtime.user`, 'must not be root, got "root" (line 19)'),
  refused(
    'runtime user upper-case',
    RUNTIME_USER,
    '        user: OpenClaw\n',
    `${CONFIG_KEY}.runtime.user`,
    'expected a lower-case account name prefix starting with a letter or _, got "OpenClaw" (line 19)',
  ),
  refused(
    'unit directory inside root',
    UNITS,
    '        systemdUnitDirectory: /var/lib/openclaw-enterprise/units\n',
    `${CONFIG_KEY}.runtime.systemdUnitDirectory`,
    'must not be inside runtime.root, got "/var/lib/openclaw-enterprise/units" (line 21)',
  ),
  refused(
    'root inside the unit directory',
    ROOT,
    '        root: /etc/systemd/system/openclaw\n',
    `${CONFIG_KEY}.runtime.root`,
    'must not be inside runtime.systemdUnitDirectory, got "/etc/systemd/system/openclaw" (line 20)',
  ),
  refused(
    'root equal to the unit directory',
    ROOT,
    '        root: /etc/systemd/system\n',
    `${CONFIG_KEY}.runtime.systemdUnitDirectory`,
    'must differ from runtime.root, got "/etc/systemd/system" (line 21)',
  ),
  // Hosts.
  refused('host user admin', '          user: root\n', '          user: admin\n', `${CONFIG_KEY}.hosts.stable.user`, 'must be "root" (SSH Compute connects only as root), got "admin" (line 13)'),
  refused('host user missing', '          user: root\n', '', `${CONFIG_KEY}.hosts.stable.user`, 'is required (line 10)'),
  refused('port 22x', PORT, '          port: 22x\n', `${CONFIG_KEY}.hosts.stable.port`, `${INTEGER_PORT}, got "22x" (line 12)`),
  refused('port 0', PORT, '          port: 0\n', `${CONFIG_KEY}.hosts.stable.port`, `${INTEGER_PORT}, got 0 (line 12)`),
  refused('port 70000', PORT, '          port: 70000\n', `${CONFIG_KEY}.hosts.stable.port`, `${INTEGER_PORT}, got 70000 (line 12)`),
  refused('empty hosts', `      hosts:\n${HOST_BLOCK}`, '      hosts: {}\n', `${CONFIG_KEY}.hosts`, 'expected at least one Namespace mapped to a host (line 9)'),
  refused('hosts as a list', `      hosts:\n${HOST_BLOCK}`, '      hosts: [stable]\n', `${CONFIG_KEY}.hosts`, 'expected a mapping, got a list (line 9)'),
  refused(
    'upper-case Namespace key',
    '        stable:\n',
    '        Stable:\n',
    `${CONFIG_KEY}.hosts.Stable`,
    'is not a Namespace name: expected a lower-case DNS label (a-z, 0-9, -; at most 63 characters) (line 10)',
  ),
  refused(
    'dotted Namespace key',
    '        stable:\n',
    '        stable.eu:\n',
    `${CONFIG_KEY}.hosts["stable.eu"]`,
    'is not a Namespace name: expected a lower-case DNS label (a-z, 0-9, -; at most 63 characters) (line 10)',
  ),
  refused(
    '__proto__ as a Namespace key',
    '        stable:\n',
    '        __proto__:\n          address: x\n          user: root\n        stable:\n',
    `${CONFIG_KEY}.hosts.__proto__`,
    'is not a Namespace name: expected a lower-case DNS label (a-z, 0-9, -; at most 63 characters) (line 10)',
  ),
  refused('host entry not a mapping', HOST_BLOCK, `${HOST_BLOCK}        canary: 203.0.113.11\n`, `${CONFIG_KEY}.hosts.canary`, 'expected a mapping, got "203.0.113.11" (line 16)'),
  refused('address with a space', ADDRESS, '          address: 203.0.113.10 -p 2222\n', `${CONFIG_KEY}.hosts.stable.address`, 'must not contain whitespace, got "203.0.113.10 -p 2222" (line 11)'),
  refused(
    'address with a leading -',
    ADDRESS,
    '          address: -oProxyCommand=sh\n',
    `${CONFIG_KEY}.hosts.stable.address`,
    'must not start with "-" (ssh would read it as an option), got "-oProxyCommand=sh" (line 11)',
  ),
  refused(
    'address with a user',
    ADDRESS,
    '          address: admin@203.0.113.10\n',
    `${CONFIG_KEY}.hosts.stable.address`,
    'expected a hostname of dot-separated labels (letters, digits, inner hyphens; 1-63 characters each) or an IP address, got "admin@203.0.113.10" (line 11)',
  ),
  refused('address as a number', ADDRESS, '          address: 10\n', `${CONFIG_KEY}.hosts.stable.address`, 'expected a hostname or IP address, got 10 (line 11)'),
  // Network and transport.
  refused('range reversed', '          start: 18800\n', '          start: 18900\n', `${CONFIG_KEY}.network.gatewayPortRange`, 'start must not be greater than end (line 23)'),
  refused('range below 1024', '          start: 18800\n', '          start: 80\n', `${CONFIG_KEY}.network.gatewayPortRange.start`, 'expected at least 1024, got 80 (line 24)'),
  refused('range above 65535', END, '          end: 70000\n', `${CONFIG_KEY}.network.gatewayPortRange.end`, 'expected at most 65535, got 70000 (line 25)'),
  refused('range bound not an integer', END, '          end: 18899.5\n', `${CONFIG_KEY}.network.gatewayPortRange.end`, 'expected an integer, got 18899.5 (line 25)'),
  refused('unknown transport', END, `${END}      transport: telnet\n`, `${CONFIG_KEY}.transport`, 'expected one of "system-ssh", "openssh-mux", "ssh2", got "telnet" (line 26)'),
  refused(
    'too many concurrent operations',
    END,
    `${END}      maxConcurrentOperationsPerHost: 11\n`,
    `${CONFIG_KEY}.maxConcurrentOperationsPerHost`,
    'expected an integer from 1 to 10, got 11 (line 26)',
  ),
  refused(
    'account ID range below 1000',
    UNITS,
    `${UNITS}        accountIdRange:\n          start: 900\n          end: 1999\n`,
    `${CONFIG_KEY}.runtime.accountIdRange.start`,
    'expected at least 1000, got 900 (line 23)',
  ),
  refused(
    'account ID range reversed',
    UNITS,
    `${UNITS}        accountIdRange:\n          start: 30000\n          end: 20000\n`,
    `${CONFIG_KEY}.runtime.accountIdRange`,
    'start must not be greater than end (line 22)',
  ),
  refused(
    'account ID range into subordinate IDs',
    UNITS,
    `${UNITS}        accountIdRange:\n          start: 50000\n          end: 100000\n`,
    `${CONFIG_KEY}.runtime.accountIdRange.end`,
    'expected at most 60000, got 100000 (line 24)',
  ),
  refused('no controller-wide bound', END, `${END}      maxConcurrentOperations: 0\n`, `${CONFIG_KEY}.maxConcurrentOperations`, 'expected an integer from 1 to 4096, got 0 (line 26)'),
];

describe('refused SSH Compute settings', () => {
  for (const refusal of CASES) it(refusal.name, () => assertRefusal(refusal));
});
