// The network rule for tests, chaos and benchmarks, enforced twice: no foreign address literal in
// their sources, and a guard that refuses to dial one at run time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { addressClass, addressLiterals, dialProblem } from './addresses.js';
import { sshHosts } from './ssh-destination.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const SCANNED = ['apps', 'libs', 'tools', 'chaos', 'bench', '.ci'];
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|sh|ya?ml)$|^run$/;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'results') continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) yield* sources(full);
    else if (SOURCE.test(entry)) yield full;
  }
}

describe('address classes', () => {
  test('loopback and the test-host range may be dialled; documentation ranges and everything else may not', () => {
    for (const a of ['127.0.0.1', '127.3.4.5', '::1', 'localhost', '10.213.7.2', '10.213.254.6']) assert.equal(dialProblem(a), undefined, a);
    for (const a of ['192.0.2.1', '203.0.113.10', '2001:db8::1', '10.0.0.1', '10.214.0.1', '192.168.1.1', '172.16.0.1', '8.8.8.8', '0.0.0.0', 'example.com']) {
      assert.match(dialProblem(a) ?? '', new RegExp(`refusing to dial ${a.replace(/\./g, '\\.')} `), a);
    }
    assert.equal(addressClass('::ffff:10.213.1.2'), 'test-range');
    assert.equal(addressClass('203.0.113.10'), 'documentation');
    for (const a of ['169.254.169.254', '169.254.0.0', 'fe80::', 'fe80::1', 'febf::2']) {
      assert.equal(addressClass(a), 'link-local', a);
      assert.match(dialProblem(a) ?? '', /refusing to dial/, a);
    }
    assert.equal(addressClass('fec0::1'), 'other');
  });

  test('literals are found with their lines, versions and times are not', () => {
    assert.deepEqual(addressLiterals('a 10.0.0.1\nb [2001:db8::7]:22 c 12:30:45 v1.2.3 2026.9.6'), [
      { line: 1, address: '10.0.0.1' },
      { line: 2, address: '2001:db8::7' },
    ]);
  });

  test('the hosts of an ssh argv: destination, -J and ProxyJump, after any option arguments', () => {
    assert.deepEqual(sshHosts(['-F', 'none', '-o', 'BatchMode=yes', '-i', '/k', '-p', '2222', 'root@10.213.3.2', 'node', '-']), ['10.213.3.2']);
    assert.deepEqual(sshHosts(['-T', '-J', 'root@192.0.2.9:22,10.213.1.2', '--', '127.0.0.1', 'true']), ['192.0.2.9', '10.213.1.2', '127.0.0.1']);
    assert.deepEqual(sshHosts(['-oProxyJump=[2001:db8::1]:22', '-O', 'check', '-S', '/s', 'root@[::1]']), ['2001:db8::1', '::1']);
    assert.deepEqual(sshHosts(['-o', 'HostName=198.51.100.4', 'alias']), ['198.51.100.4', 'alias']);
    const config = 'Host occ-ssh-jump\n  HostName 10.213.9.2\n  Port 22\n';
    assert.deepEqual(
      sshHosts(['-F', '/x/ssh_config', '-J', 'occ-ssh-jump', '--', '10.213.3.6', 'true'], () => config),
      ['10.213.9.2', '10.213.3.6'],
    );
  });
});

describe('sources', () => {
  test('tests, chaos and benchmarks name no address outside loopback, the test range, documentation ranges and link-local deny rules', () => {
    const offenders: string[] = [];
    let files = 0;
    for (const top of SCANNED) {
      const dir = path.join(ROOT, top);
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      for (const file of sources(dir)) {
        files++;
        if (file === fileURLToPath(import.meta.url)) continue; // names forbidden addresses on purpose; its probes run with no route
        for (const { line, address } of addressLiterals(readFileSync(file, 'utf8'))) {
          if (addressClass(address) === 'other') offenders.push(`${path.relative(ROOT, file)}:${line} ${address}`);
        }
      }
    }
    assert.ok(files > 100, `scanned ${files} files`);
    assert.deepEqual(offenders, []);
  });
});

describe('the run-time guard', () => {
  // Each probe runs in a fresh network namespace with no route at all: were the guard to let a
  // dial through, it would still fail inside this machine.
  const guarded = (script: string) =>
    spawnSync('unshare', ['--net', process.execPath, '--import', 'tsx', '--import', path.join(HERE, 'register.ts'), '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });

  test('a socket to a foreign address throws before connecting; loopback goes through', () => {
    const r = guarded(`import net from 'node:net';
      try { net.connect(22, '192.0.2.1'); console.log('dialled'); } catch (e) { console.log(e.message); }
      const s = net.connect({ host: '127.0.0.1', port: 9 }); s.on('error', (e) => console.log('loopback', e.code));`);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^network guard: refusing to dial 192\.0\.2\.1 \(documentation\)/m);
    assert.match(r.stdout, /^loopback E(CONNREFUSED|NETUNREACH)$/m);
    assert.doesNotMatch(r.stdout, /dialled/);
  });

  test('an ssh child process to a foreign address is refused before it starts', () => {
    const r = guarded(`import { spawn, spawnSync } from 'node:child_process';
      for (const run of [spawn, spawnSync]) {
        try { run('ssh', ['-o', 'BatchMode=yes', 'root@10.1.2.3', 'true']); console.log('started'); } catch (e) { console.log(e.message); }
      }
      const { promisify } = await import('node:util');
      const { execFile } = await import('node:child_process');
      try { await promisify(execFile)('ssh', ['root@10.1.2.3', 'true']); console.log('started'); } catch (e) { console.log(e.message); }
      const { stdout } = await promisify(execFile)('echo', ['kept']);
      console.log('promisified', stdout.trim());`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.match(/refusing to dial 10\.1\.2\.3 \(other\)/g)?.length, 3, r.stdout);
    assert.match(r.stdout, /^promisified kept$/m, 'promisify(execFile) still resolves with { stdout, stderr }');
    assert.doesNotMatch(r.stdout, /started/);
  });
});
