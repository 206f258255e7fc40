// Unit tests of the harness's pure parts: recipe hash, remote quoting, mirror and mountinfo parsing, argv.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { remoteCommand } from '@occ-ssh/ssh-client';
import { parseCliArgs, UsageError } from './cli-args.js';
import { mirrorFromDeb822, mirrorFromSourcesList } from './mirror.js';
import { cgroupRoots, parseMountinfo } from './mountinfo.js';
import { networkCommands } from './network.js';
import { nspawnArgs } from './nspawn.js';
import { addressesFor, assertHostName } from './paths.js';
import { canonicalJson, imageChoiceFromEnv, imageId, NODE_LINES, recipeFor, recipeHash } from './recipe.js';

const run = promisify(execFile);

describe('recipe hash', () => {
  it('is stable and ignores package order and duplicates', () => {
    const r = recipeFor('base');
    assert.equal(recipeHash(r), recipeHash(recipeFor('base')));
    assert.equal(recipeHash(r), recipeHash({ ...r, packages: [...r.packages].reverse().concat(r.packages[0] ?? '') }));
    assert.match(recipeHash(r), /^[0-9a-f]{16}$/);
  });

  it('changes with any recipe input', () => {
    const r = recipeFor('base');
    const h = recipeHash(r);
    assert.notEqual(recipeHash({ ...r, packages: [...r.packages, 'vim-tiny'] }), h);
    assert.notEqual(recipeHash({ ...r, nodeVersion: '24.16.0' }), h);
    assert.notEqual(recipeHash({ ...r, openclawVersion: '2026.9.5' }), h);
    assert.notEqual(recipeHash({ ...r, sshdConfig: `${r.sshdConfig}X11Forwarding no\n` }), h);
    assert.notEqual(recipeHash({ ...r, revision: r.revision + 1 }), h);
  });

  it('gives the python variant its own image with python3 added', () => {
    assert.ok(recipeFor('python').packages.includes('python3'));
    assert.ok(!recipeFor('base').packages.includes('python3'));
    assert.notEqual(imageId(recipeFor('python')), imageId(recipeFor('base')));
    assert.match(imageId(recipeFor('python')), /^python-/);
  });

  it('gives the strace variant its own image with strace added, leaving the base image as it was', () => {
    assert.ok(recipeFor('strace').packages.includes('strace'));
    assert.ok(!recipeFor('base').packages.includes('strace'));
    assert.notEqual(imageId(recipeFor('strace')), imageId(recipeFor('base')));
    assert.match(imageId(recipeFor('strace')), /^strace-/);
  });

  it('gives each Debian release and host Node line its own image, the default one unchanged, strace derived from its own base', () => {
    const base = recipeFor('base', { debian: 'bookworm', node: 24 });
    assert.deepEqual(recipeFor('base', imageChoiceFromEnv({})), base);
    assert.equal(base.suite, 'bookworm');
    assert.equal(base.derivedFrom, undefined);
    const ids = (['bookworm', 'trixie'] as const).flatMap((debian) => ([24, 26] as const).map((node) => imageId(recipeFor('base', { debian, node }))));
    assert.equal(new Set(ids).size, 4);
    assert.equal(recipeFor('base', { debian: 'trixie', node: 26 }).suite, 'trixie');
    assert.equal(recipeFor('base', { debian: 'trixie', node: 26 }).nodeVersion, NODE_LINES[26]);
    assert.equal(recipeFor('strace', { debian: 'trixie', node: 24 }).derivedFrom, imageId(recipeFor('base', { debian: 'trixie', node: 24 })));
    assert.deepEqual(imageChoiceFromEnv({ OCC_TESTHOST_DEBIAN: 'trixie', OCC_TESTHOST_NODE: '26' }), { debian: 'trixie', node: 26 });
    assert.throws(() => imageChoiceFromEnv({ OCC_TESTHOST_DEBIAN: 'sid' }), /unknown Debian release sid/);
    assert.throws(() => imageChoiceFromEnv({ OCC_TESTHOST_NODE: '22' }), /unknown host Node line 22/);
  });

  it('pins exact versions, Node 24 >= 24.16', () => {
    const { nodeVersion, openclawVersion } = recipeFor('base');
    const [major, minor] = nodeVersion.split('.').map(Number);
    assert.equal(major, 24);
    assert.ok((minor ?? 0) >= 16);
    assert.match(openclawVersion, /^\d+\.\d+\.\d+$/);
  });

  it('serialises objects with sorted keys', () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: null }] }), '{"a":[{"c":null,"d":2}],"b":1}');
  });
});

describe('remote shell quoting (remoteCommand)', () => {
  const nasty = ['plain', '', 'two words', "it's", '$HOME', '`id`', '"q"', 'a\\b', 'x;rm -rf /', 'line\nbreak', '*', '-n', 'ü€'];

  it('round-trips every argument through a real POSIX shell', async () => {
    const { stdout } = await run('sh', ['-c', `printf '%s\\0' ${remoteCommand(nasty)}`]);
    assert.deepEqual(stdout.split('\0').slice(0, -1), nasty);
  });
});

describe('mirror discovery', () => {
  const deb822 = [
    'Types: deb',
    '# a comment',
    'URIs: http://mirror.invalid/debian',
    'Suites: bookworm bookworm-updates',
    'Components: main',
    '',
    'Types: deb',
    'URIs: http://mirror.invalid/debian-security',
    'Suites: bookworm-security',
    'Components: main',
  ].join('\n');

  it('reads the main archive URI from deb822 sources', () => {
    assert.equal(mirrorFromDeb822(deb822), 'http://mirror.invalid/debian');
    const securityFirst = deb822.split('\n\n').reverse().join('\n\n');
    assert.equal(mirrorFromDeb822(securityFirst), 'http://mirror.invalid/debian');
    assert.equal(mirrorFromDeb822('Types: deb-src\nURIs: http://x.invalid/d\nSuites: bookworm\n'), undefined);
    assert.equal(mirrorFromDeb822('Types: deb\nURIs: http://x.invalid/d\nSuites: bookworm\nEnabled: no\n'), undefined);
  });

  it('reads the first deb line of a one-line sources.list', () => {
    const list =
      '# deb http://old.invalid/debian bookworm main\ndeb-src http://s.invalid/debian bookworm main\n' +
      'deb http://sec.invalid/debian-security bookworm-security main\ndeb [arch=amd64 signed-by=/k.gpg] http://m.invalid/debian bookworm main\n';
    assert.equal(mirrorFromSourcesList(list), 'http://m.invalid/debian');
    assert.equal(mirrorFromSourcesList('# nothing\n'), undefined);
  });
});

describe('mountinfo', () => {
  const text = [
    '30 1 0:26 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755',
    '31 30 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory',
    '34 30 0:30 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu',
    '35 30 0:31 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids',
    '32 30 0:28 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd',
    '33 30 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw',
    '40 1 0:50 / /var/tmp/a\\040b/root rw shared:5 - overlay overlay rw,lowerdir=/x',
  ].join('\n');

  it('finds the systemd, memory, pids and cgroup2 hierarchies and unescapes paths', () => {
    const mounts = parseMountinfo(text);
    assert.deepEqual(cgroupRoots(mounts), ['/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids', '/sys/fs/cgroup/systemd', '/sys/fs/cgroup/unified']);
    assert.equal(mounts[6]?.mountPoint, '/var/tmp/a b/root');
    assert.equal(mounts[6]?.fsType, 'overlay');
    assert.deepEqual(cgroupRoots(parseMountinfo('9 1 0:9 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw')), ['/sys/fs/cgroup']);
  });
});

describe('names, addresses and argv', () => {
  it('keeps host names short enough for ve-<name>', () => {
    assertHostName('th1');
    assertHostName('abcdefghijkl');
    for (const bad of ['abcdefghijklm', 'Upper', '1abc', 'a_b', '', 'a/b']) assert.throws(() => assertHostName(bad), bad);
  });

  it('maps slots to a /30 each', () => {
    assert.deepEqual(addressesFor(7), { machine: '10.213.7.1', host: '10.213.7.2' });
    assert.throws(() => addressesFor(0));
    assert.throws(() => addressesFor(255));
  });

  it('builds the network and nspawn argv the recipe prescribes', () => {
    const { machine, inside } = networkCommands('web1', 3);
    const [m, i] = [machine.map((c) => c.join(' ')), inside.map((c) => c.join(' '))];
    assert.equal(m[0], 'netns add occth-web1');
    assert.equal(m[1], 'link add ve-web1 type veth peer name host0 netns occth-web1');
    assert.ok(m.includes('addr replace 10.213.3.1/30 dev ve-web1'));
    assert.ok(i.includes('addr replace 10.213.3.2/30 dev host0'));
    assert.ok(![...m, ...i].some((c) => c.includes('route')), 'no route out');
    // Batch lines are split on blanks by ip itself, so no argument may contain one.
    assert.ok([...machine, ...inside].flat().every((a) => !/\s/.test(a)));
    const args = nspawnArgs('web1', '/r');
    for (const a of ['--register=no', '--keep-unit', '--resolv-conf=off', '--console=read-only', '--network-namespace-path=/run/netns/occth-web1']) {
      assert.ok(args.includes(a), a);
    }
  });

  it('parses the CLI and rejects misuse as usage errors', () => {
    const image = imageChoiceFromEnv();
    assert.deepEqual(parseCliArgs(['build', '--variant', 'python']), { command: 'build', variant: 'python', image });
    assert.deepEqual(parseCliArgs(['up', 'web1']), { command: 'up', name: 'web1', variant: 'base', image });
    assert.deepEqual(parseCliArgs(['build', '--debian', 'trixie', '--node', '26']), { command: 'build', variant: 'base', image: { debian: 'trixie', node: 26 } });
    for (const bad of [
      [],
      ['nope'],
      ['up'],
      ['up', 'a', 'b'],
      ['down', 'Bad_Name'],
      ['reap', 'x'],
      ['build', '--variant', 'arch'],
      ['down', 'a', '--variant', 'base'],
      ['build', '--debian', 'sid'],
      ['build', '--node', '20'],
      ['reap', '--node', '26'],
    ]) {
      assert.throws(() => parseCliArgs(bad), UsageError, bad.join(' '));
    }
  });
});
