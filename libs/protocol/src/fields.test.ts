// Field rules: host paths, IDs, Namespace names, runtime.user and ports.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatewayPort, ID_PATTERN, MAX_PATH_LENGTH, NAMESPACE_NAME_PATTERN, namespaceName, portRange, resourceId, runtimeUser, safePath, safePathProblem } from './fields.js';

describe('safePathProblem', () => {
  it('accepts plain absolute paths', () => {
    for (const path of [
      '/usr/bin/node',
      '/opt/openclaw/current/dist/index.js',
      '/var/lib/openclaw-enterprise',
      '/etc/systemd/system',
      '/opt/node-v24.1.0/bin/node',
      '/a/b_c/d+e/f@g/h,i/j=k',
      '/.hidden/file',
    ]) {
      assert.equal(safePathProblem(path), undefined, path);
      assert.equal(safePath.safeParse(path).success, true, path);
    }
  });

  const refused: Array<[string, string]> = [
    ['relative', 'usr/bin/node'],
    ['dot-relative', './node'],
    ['empty', ''],
    ['the filesystem root', '/'],
    ['space', '/usr/local/my node'],
    ['tab', '/usr/bin/\tnode'],
    ['no-break space', '/usr/bin/\u00a0node'],
    ['double quote', '/usr/bin/"node"'],
    ['single quote', "/usr/bin/no'de"],
    ['backtick', '/usr/bin/`id`'],
    ['dollar', '/usr/bin/$NODE'],
    ['dollar brace', '/opt/${x}/node'],
    ['percent specifier', '/var/lib/%i'],
    ['semicolon', '/usr/bin/node;id'],
    ['pipe', '/usr/bin/node|id'],
    ['ampersand', '/usr/bin/node&'],
    ['redirect', '/usr/bin/node>x'],
    ['subshell', '/usr/bin/(node)'],
    ['glob', '/usr/bin/no*de'],
    ['question mark', '/usr/bin/node?'],
    ['tilde', '~/node'],
    ['embedded tilde', '/home/~user/node'],
    ['hash', '/usr/bin/#node'],
    ['backslash', '/usr/bin/no\\de'],
    ['dot-dot segment', '/opt/../etc/shadow'],
    ['trailing dot-dot', '/opt/openclaw/..'],
    ['dot segment', '/opt/./node'],
    ['newline', '/usr/bin/node\n'],
    ['carriage return', '/usr/bin/node\rx'],
    ['NUL', '/usr/bin/node\u0000'],
    ['DEL', '/usr/bin/node\u007f'],
    ['escape', '/usr/bin/\u001bnode'],
    ['trailing slash', '/usr/bin/'],
    ['double slash', '/usr//bin/node'],
    ['non-ASCII', '/opt/\u00f6penclaw/index.js'],
    ['too long', `/${'a'.repeat(MAX_PATH_LENGTH)}`],
  ];
  for (const [what, path] of refused) {
    it(`refuses ${what}`, () => {
      assert.equal(typeof safePathProblem(path), 'string', JSON.stringify(path));
      assert.equal(safePath.safeParse(path).success, false, JSON.stringify(path));
    });
  }

  it('names the reason', () => {
    assert.match(safePathProblem('node') ?? '', /absolute/);
    assert.match(safePathProblem('/a b') ?? '', /whitespace/);
    assert.match(safePathProblem('/a"b') ?? '', /quotes/);
    assert.match(safePathProblem('/a$b') ?? '', /expansion/);
    assert.match(safePathProblem('/a%b') ?? '', /expansion/);
    assert.match(safePathProblem('/a;b') ?? '', /metacharacters/);
    assert.match(safePathProblem('/a/../b') ?? '', /\.\./);
    assert.match(safePathProblem('/a\u0001b') ?? '', /control/);
    assert.match(safePathProblem('/a/') ?? '', /end with/);
  });

  it('a path of exactly MAX_PATH_LENGTH characters is accepted', () => {
    assert.equal(safePathProblem(`/${'a'.repeat(MAX_PATH_LENGTH - 1)}`), undefined);
  });
});

describe('resource IDs', () => {
  it('accepts letters, digits and . _ : @ - up to 128 characters', () => {
    for (const id of ['ns-01HZX3', 'agent-7f3a', 'rev-0001', 'a', '0', 'a.b_c:d@e-f', 'x'.repeat(128), 'urn:occ:ns@1']) {
      assert.equal(resourceId.safeParse(id).success, true, id);
      assert.match(id, ID_PATTERN);
    }
  });

  it('refuses slashes, newline, NUL, non-ASCII, 129 characters and other shapes', () => {
    for (const id of [
      'ns/01',
      'ns\\01',
      '../etc',
      'ns-01\n',
      'ns-01\nX-OCC-Agent-Id=other',
      '\nns-01',
      'ns-01\r',
      'ns\u000001',
      'ns-\u00fc',
      'ns-\u65e5',
      'ns-\u{1F600}',
      'x'.repeat(129),
      '',
      ' ns',
      'ns 01',
      '-ns',
      '.ns',
      'ns=1',
      'ns#1',
    ]) {
      assert.equal(resourceId.safeParse(id).success, false, JSON.stringify(id));
    }
  });
});

describe('Namespace names', () => {
  it('accepts DNS labels', () => {
    for (const name of ['team-a', 'a', '0', 'a'.repeat(63), 'a-b-c']) {
      assert.equal(namespaceName.safeParse(name).success, true, name);
      assert.match(name, NAMESPACE_NAME_PATTERN);
    }
  });

  it('refuses anything else', () => {
    for (const name of ['Team-a', 'team_a', '-team', 'team-', 'a'.repeat(64), '', 'team.a', 'team a', 'team\n']) {
      assert.equal(namespaceName.safeParse(name).success, false, JSON.stringify(name));
    }
  });
});

describe('runtime.user', () => {
  it('accepts lower-case account prefixes', () => {
    for (const user of ['openclaw', '_oc', 'oc-runtime', 'a'.repeat(32)]) assert.equal(runtimeUser.safeParse(user).success, true, user);
  });

  it('refuses non-ASCII, upper-case, root, empty and over-long', () => {
    for (const user of ['\u00f6penclaw', 'OpenClaw', 'root', '', 'a'.repeat(33), '1oc', '-oc', 'oc user', 'oc$']) {
      assert.equal(runtimeUser.safeParse(user).success, false, JSON.stringify(user));
    }
  });
});

describe('ports', () => {
  it('integers in 1024..65535', () => {
    for (const value of [1024, 18800, 65535]) assert.equal(gatewayPort.safeParse(value).success, true);
    for (const value of [1023, 0, 65536, 18800.5, '18800', Number.NaN]) assert.equal(gatewayPort.safeParse(value).success, false, String(value));
  });

  it('a range has start <= end and no unknown keys', () => {
    assert.equal(portRange.safeParse({ start: 18800, end: 18899 }).success, true);
    assert.equal(portRange.safeParse({ start: 18800, end: 18800 }).success, true);
    assert.equal(portRange.safeParse({ start: 18900, end: 18899 }).success, false);
    assert.equal(portRange.safeParse({ start: 18800, end: 18899, step: 1 }).success, false);
  });
});
