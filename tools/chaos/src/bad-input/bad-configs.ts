// Malformed Installation documents: every SSH Compute key given wrong types, forbidden path
// characters, out-of-range numbers, unknown siblings or no value, plus broken YAML, plus seeded
// random corruptions of path values. Each case names the key path its refusal must name.
import { CONFIG_KEY, REFERENCE_COMPUTE_SELECTION } from '@occ-ssh/test-support';
import type { Rng } from '../campaign/rng.js';

/** A valid Installation; every case below is one edit of it. */
export const BASE_INSTALLATION = `${REFERENCE_COMPUTE_SELECTION}  configuration:
    id: configuration-postgres
  iam:
    id: iam-oidc
`;

export interface ConfigCase {
  name: string;
  text: string;
  /** The refusal's message must start with this key path (or `Installation document` for the whole file). */
  key: string;
}

/** Replaces the value on the line `<indent><key>: <value>` that follows `under` (a unique earlier line). */
export function setValue(text: string, under: string, key: string, value: string | null): string {
  const start = text.indexOf(under);
  if (start === -1) throw new Error(`fixture: ${under.trim()} not found`);
  const pattern = new RegExp(`^( +)${key}:.*$`, 'm');
  const rest = text.slice(start);
  const match = pattern.exec(rest);
  if (!match) throw new Error(`fixture: ${key} not found under ${under.trim()}`);
  const at = start + match.index;
  const replacement = value === null ? '' : `${match[1]}${key}: ${value}`;
  const end = at + match[0].length + (value === null ? 1 : 0);
  return text.slice(0, at) + replacement + text.slice(end);
}

/** Adds a line right after the line `after`, indented like `indent`. */
function addLine(text: string, after: string, line: string): string {
  const at = text.indexOf(after);
  if (at === -1) throw new Error(`fixture: ${after.trim()} not found`);
  const end = text.indexOf('\n', at) + 1;
  return text.slice(0, end) + line + '\n' + text.slice(end);
}

const PATH_KEYS: readonly [string, string, string][] = [
  ['      ssh:', 'identityFile', `${CONFIG_KEY}.ssh.identityFile`],
  ['      ssh:', 'knownHostsFile', `${CONFIG_KEY}.ssh.knownHostsFile`],
  ['        stable:', 'nodePath', `${CONFIG_KEY}.hosts.stable.nodePath`],
  ['        stable:', 'openclawPath', `${CONFIG_KEY}.hosts.stable.openclawPath`],
  ['      runtime:', 'nodePath', `${CONFIG_KEY}.runtime.nodePath`],
  ['      runtime:', 'openclawPath', `${CONFIG_KEY}.runtime.openclawPath`],
  ['      runtime:', 'root', `${CONFIG_KEY}.runtime.root`],
  ['      runtime:', 'systemdUnitDirectory', `${CONFIG_KEY}.runtime.systemdUnitDirectory`],
];

const BAD_PATHS: readonly [string, string][] = [
  ['relative', 'usr/bin/node'],
  ['space', '"/usr/local/my node"'],
  ['tab', '"/usr/bin/\\tnode"'],
  ['double quote', `'/usr/bin/"node"'`],
  ['single quote', `"/usr/bin/no'de"`],
  ['backtick', '/opt/`id`/x'],
  ['dollar', '/var/lib/$HOME'],
  ['percent', '/var/lib/%i'],
  ['semicolon', '/usr/bin/node;reboot'],
  ['pipe', '"/usr/bin/node|id"'],
  ['dot-dot', '/opt/../etc/shadow'],
  ['trailing slash', '/usr/bin/'],
  ['the filesystem root', '/'],
  ['non-ASCII', '/opt/öpenclaw/x'],
  ['newline', '"/var/lib/open\\nclaw"'],
  ['NUL', '"/usr/bin/no\\u0000de"'],
  ['a number', '7'],
  ['a list', '[/usr/bin/node]'],
];

const INTEGER_KEYS: readonly [string, string, string][] = [
  ['      ssh:', 'connectTimeoutSeconds', `${CONFIG_KEY}.ssh.connectTimeoutSeconds`],
  ['        stable:', 'port', `${CONFIG_KEY}.hosts.stable.port`],
  ['        gatewayPortRange:', 'start', `${CONFIG_KEY}.network.gatewayPortRange`],
  ['        gatewayPortRange:', 'end', `${CONFIG_KEY}.network.gatewayPortRange`],
];

const BAD_INTEGERS: readonly [string, string][] = [
  ['zero', '0'],
  ['negative', '-1'],
  ['fraction', '1.5'],
  ['string', '"10"'],
  ['too large', '70000'],
  ['boolean', 'true'],
  ['a mapping', '{ n: 1 }'],
];

/** The fixed catalogue of refusals. */
export function fixedConfigCases(): ConfigCase[] {
  const base = BASE_INSTALLATION;
  const cases: ConfigCase[] = [];
  const add = (name: string, text: string, key: string) => cases.push({ name, text, key });

  for (const [under, key, path] of PATH_KEYS) {
    for (const [what, value] of BAD_PATHS) add(`${path}: ${what}`, setValue(base, under, key, value), path);
  }
  for (const [under, key, path] of INTEGER_KEYS) {
    for (const [what, value] of BAD_INTEGERS) add(`${path}.${key}: ${what}`, setValue(base, under, key, value), path);
  }
  // Unknown keys at every depth.
  add('unknown configuration key', addLine(base, '    configuration:', '      transprt: ssh2'), `${CONFIG_KEY}.transprt`);
  add('unknown ssh key', addLine(base, '      ssh:', '        connectTimeout: 10'), `${CONFIG_KEY}.ssh.connectTimeout`);
  add('unknown host key', addLine(base, '        stable:', '          portt: 22'), `${CONFIG_KEY}.hosts.stable.portt`);
  add('unknown runtime key', addLine(base, '      runtime:', '        group: openclaw'), `${CONFIG_KEY}.runtime.group`);
  add('unknown network key', addLine(base, '      network:', '        bind: 0.0.0.0'), `${CONFIG_KEY}.network.bind`);
  add('unknown range key', addLine(base, '        gatewayPortRange:', '          step: 1'), `${CONFIG_KEY}.network.gatewayPortRange.step`);
  add('unknown compute key', addLine(base, '    id: compute-ssh', '    version: 2'), 'drivers.compute.version');
  // Missing required keys.
  for (const [under, key, path] of [
    ['      ssh:', 'identityFile', `${CONFIG_KEY}.ssh.identityFile`],
    ['      ssh:', 'knownHostsFile', `${CONFIG_KEY}.ssh.knownHostsFile`],
    ['        stable:', 'address', `${CONFIG_KEY}.hosts.stable.address`],
    ['        stable:', 'user', `${CONFIG_KEY}.hosts.stable.user`],
    ['      runtime:', 'nodePath', `${CONFIG_KEY}.runtime.nodePath`],
    ['      runtime:', 'openclawPath', `${CONFIG_KEY}.runtime.openclawPath`],
    ['      runtime:', 'user', `${CONFIG_KEY}.runtime.user`],
    ['      runtime:', 'root', `${CONFIG_KEY}.runtime.root`],
    ['        gatewayPortRange:', 'start', `${CONFIG_KEY}.network.gatewayPortRange.start`],
  ] as const) {
    add(`missing ${path}`, setValue(base, under, key, null), path);
  }
  // Accounts, addresses and transport.
  for (const [what, value] of [
    ['root', 'root'],
    ['upper-case', 'OpenClaw'],
    ['digit first', '1oc'],
    ['too long', 'a'.repeat(33)],
    ['space', '"oc user"'],
  ] as const) {
    add(`runtime.user ${what}`, setValue(base, '      runtime:', 'user', value), `${CONFIG_KEY}.runtime.user`);
  }
  add('host user admin', setValue(base, '        stable:', 'user', 'admin'), `${CONFIG_KEY}.hosts.stable.user`);
  for (const [what, value] of [
    ['space', '"203.0.113.10 -p 2222"'],
    ['leading dash', '-oProxyCommand=sh'],
    ['user part', 'admin@203.0.113.10'],
    ['empty', '""'],
    ['a number', '10'],
    ['too long', `${'a'.repeat(64)}.example`],
  ] as const) {
    add(`address ${what}`, setValue(base, '        stable:', 'address', value), `${CONFIG_KEY}.hosts.stable.address`);
  }
  add('transport unknown', addLine(base, '    configuration:', '      transport: telnet'), `${CONFIG_KEY}.transport`);
  add('maxConcurrentOperationsPerHost 0', addLine(base, '    configuration:', '      maxConcurrentOperationsPerHost: 0'), `${CONFIG_KEY}.maxConcurrentOperationsPerHost`);
  add('maxConcurrentOperationsPerHost 11', addLine(base, '    configuration:', '      maxConcurrentOperationsPerHost: 11'), `${CONFIG_KEY}.maxConcurrentOperationsPerHost`);
  add('upper-case Namespace key', base.replace('        stable:', '        Stable:'), `${CONFIG_KEY}.hosts.Stable`);
  add('dotted Namespace key', base.replace('        stable:', '        stable.eu:'), `${CONFIG_KEY}.hosts["stable.eu"]`);
  add('unit directory inside root', setValue(base, '      runtime:', 'systemdUnitDirectory', '/var/lib/openclaw-enterprise/units'), `${CONFIG_KEY}.runtime.systemdUnitDirectory`);
  add('root inside the unit directory', setValue(base, '      runtime:', 'root', '/etc/systemd/system/openclaw'), `${CONFIG_KEY}.runtime.root`);
  add('identity equals known hosts', setValue(base, '      ssh:', 'knownHostsFile', '/etc/openclaw/ssh/id_ed25519'), `${CONFIG_KEY}.ssh.knownHostsFile`);
  add('Sandbox driver selected', `${base}  sandbox:\n    id: sandbox-any\n`, 'drivers.sandbox');
  add('Kubernetes Compute selected', base.replace('    id: compute-ssh', '    id: compute-kubernetes'), 'drivers.compute.id');
  add('compute id missing', base.replace('    id: compute-ssh\n', ''), 'drivers.compute.id');
  // The document as a whole.
  const doc = 'Installation document';
  add('empty document', '', doc);
  add('a list', '- a\n- b\n', doc);
  add('a scalar', 'compute-ssh\n', doc);
  add('tab indentation', base.replace('        user: openclaw', '\tuser: openclaw'), doc);
  add('two documents', `${base}---\na: 1\n`, doc);
  add('duplicate key', base.replace('      hosts:', '      ssh:\n        identityFile: /x\n      hosts:'), doc);
  add('unclosed quote', base.replace('root: /var/lib/openclaw-enterprise', 'root: "/var/lib/open'), doc);
  add('flow collection broken', base.replace('drivers:', 'drivers: ['), doc);
  return cases;
}

const FORBIDDEN = [' ', '\\"', "'", '`', '$', '%', ';', '|', '&', '>', '<', '(', ')', '*', '?', '~', '#', '\\\\', '\\t', '\\n', '\\r', '\\u0000', '\\u007f', '\\u001b', 'é', '日'];

/** Seeded random corruptions: one forbidden character at a random place in a random path value. */
export function randomConfigCases(rng: Rng, count: number): ConfigCase[] {
  const cases: ConfigCase[] = [];
  const values: Record<string, string> = {
    identityFile: '/etc/openclaw/ssh/id_ed25519',
    knownHostsFile: '/etc/openclaw/ssh/known_hosts',
    nodePath: '/usr/bin/node',
    openclawPath: '/opt/openclaw/current/dist/index.js',
    root: '/var/lib/openclaw-enterprise',
    systemdUnitDirectory: '/etc/systemd/system',
  };
  for (let i = 0; i < count; i += 1) {
    const [under, key, path] = rng.pick(PATH_KEYS);
    const value = values[key]!;
    const at = rng.int(1, value.length);
    const character = rng.pick(FORBIDDEN);
    const corrupted = `"${value.slice(0, at)}${character}${value.slice(at)}"`;
    cases.push({ name: `random: ${path} with ${JSON.stringify(character)} at ${at}`, text: setValue(BASE_INSTALLATION, under, key, corrupted), key: path });
  }
  return cases;
}
