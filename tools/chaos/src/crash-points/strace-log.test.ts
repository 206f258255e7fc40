// Reading strace logs: which calls change the disk, how strace numbers them for `when=`, and
// which call an injection hit. Lines are as strace 6.1 prints them with -f -y -s 0.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hitOf, isMutating, parseLog, pointsOf, straceArgv } from './strace-log.js';

const ROOT = '/var/lib/openclaw-enterprise';
const NS = `${ROOT}/namespaces/80bb8ece7f5e`;

// The helper (pid 68) ensuring a Namespace, with a heartbeat on its session socket, an eventfd
// write and a failed mkdir of an existing parent, plus a forked flock child and a worker thread.
const ENSURE = `68    execve("/usr/local/bin/node", [...], 0x7ffeca25f560 /* 11 vars */) = 0
68    openat(AT_FDCWD</root>, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache>
68    write(19<anon_inode:[eventfd]>, ""..., 8) = 8
75    execve("/usr/bin/flock", [...], 0x438b5600 /* 1 var */ <detached ...>
69    write(12</dev/null>, ""..., 3) = 3
68    mkdir("/var/lib", 0755) = -1 EEXIST (File exists)
68    mkdir("${NS}", 0700) = 0
68    fchown(22<${NS}>, 0, 0) = 0
68    fchmod(22<${NS}>, 0711) = 0
68    fsync(22<${ROOT}/namespaces>) = 0
68    write(21<socket:[581468]>, ""..., 26) = 26
68    openat(AT_FDCWD</root>, "${NS}/.namespace.json.tmp-58ad1088de2f", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600) = 22<${NS}/.namespace.json.tmp-58ad1088de2f>
68    write(22<${NS}/.namespace.json.tmp-58ad1088de2f>, ""..., 124 <unfinished ...>
70    openat(AT_FDCWD</root>, "/proc/self/status", O_RDONLY) = 23</proc/68/status>
68    <... write resumed>) = 124
68    fsync(22<${NS}/.namespace.json.tmp-58ad1088de2f>) = 0
68    rename("${NS}/.namespace.json.tmp-58ad1088de2f", "${NS}/namespace.json") = 0
68    fsync(22<${NS}>) = 0
`;

describe('strace logs', () => {
  it('counts only calls that change the disk: no reads, pipes, sockets, eventfds or /dev writes', () => {
    const log = parseLog(ENSURE);
    const mutating = log.calls.filter(isMutating).map((call) => call.syscall);
    assert.deepEqual(mutating, ['mkdir', 'mkdir', 'fchown', 'fchmod', 'fsync', 'openat', 'write', 'fsync', 'rename', 'fsync']);
    assert.equal(log.firstPid, 68);
    assert.equal(log.programs.get(75), 'flock');
  });

  it('numbers helper points the way strace counts when=: per system call, every traced call of the main thread', () => {
    const points = pointsOf(parseLog(ENSURE), 'helper', ROOT);
    // The failed mkdir is no point; the write to the temp file is the helper's third write (after eventfd and socket).
    assert.deepEqual(
      points.map((p) => `${p.syscall}#${p.when}`),
      ['mkdir#2', 'fchown#1', 'fchmod#1', 'fsync#1', 'openat#2', 'write#3', 'fsync#2', 'rename#1', 'fsync#3'],
    );
    assert.equal(points[5]!.what, 'write <root>/namespaces/#/.namespace.json.tmp-*');
    assert.deepEqual(points[8]!.whens, [1, 2, 3]);
  });

  it('finds the call a SIGKILL hit, and whether it was a mutating one', () => {
    const killedAtRename =
      ENSURE.split('\n').slice(0, 16).join('\n') +
      `\n68    rename("${NS}/.namespace.json.tmp-58ad1088de2f", "${NS}/namespace.json" <unfinished ...>\n68    +++ killed by SIGKILL +++\n70    +++ killed by SIGKILL +++\n`;
    const hit = hitOf(parseLog(killedAtRename), 'rename', { kind: 'kill' }, ROOT);
    assert.deepEqual(hit, { what: 'rename <root>/namespaces/#/.namespace.json.tmp-*', program: 'node', mutating: true, ordinal: 1 });
    const atHeartbeat = `68    write(21<socket:[1]>, ""..., 26 <unfinished ...>\n68    +++ killed by SIGKILL +++\n`;
    assert.deepEqual(hitOf(parseLog(atHeartbeat), 'write', { kind: 'kill' }, ROOT), { what: 'write', program: 'node', mutating: false, ordinal: 1 });
    assert.equal(hitOf(parseLog(ENSURE), 'rename', { kind: 'kill' }, ROOT), undefined);
  });

  it('reads a single-thread log, whose lines carry no pid', () => {
    const log = parseLog(`write(21<socket:[1]>, ""..., 26) = 26\nrename("${NS}/.a.tmp-0123456789ab", "${NS}/a" <unfinished ...>\n+++ killed by SIGKILL +++\n`);
    assert.deepEqual(hitOf(log, 'rename', { kind: 'kill' }, ROOT), { what: 'rename <root>/namespaces/#/.a.tmp-*', program: 'node', mutating: true, ordinal: 1 });
    const padded = parseLog(`write(21<socket:[1]>, ""..., 26)   = 26\nwrite(22<${NS}/.a.tmp-0123456789ab>, ""..., 9)      = -1 ENOSPC (No space left on device) (INJECTED)\n`);
    assert.deepEqual(hitOf(padded, 'write', { kind: 'error', errno: 'ENOSPC' }, ROOT), { what: 'write <root>/namespaces/#/.a.tmp-*', program: 'node', mutating: true, ordinal: 1 });
    assert.equal(padded.calls[0]!.result, '26');
  });

  it('finds the call an injected error hit', () => {
    const log = parseLog(`68    rename("${NS}/.a.tmp-0123456789ab", "${NS}/a") = -1 EIO (Input/output error) (INJECTED)\n`);
    assert.deepEqual(hitOf(log, 'rename', { kind: 'error', errno: 'EIO' }, ROOT), { what: 'rename <root>/namespaces/#/.a.tmp-*', program: 'node', mutating: true, ordinal: 1 });
  });

  it('numbers a child point on its own shadow file, so another child cannot reach the number first', () => {
    const text = `90    execve("/usr/sbin/groupadd", [...], 0x1 /* 4 vars */) = 0
90    openat(AT_FDCWD</>, "/etc/group+", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 4</etc/group+>
90    fsync(4</etc/group+>) = 0
91    execve("/usr/sbin/useradd", [...], 0x1 /* 4 vars */) = 0
91    openat(AT_FDCWD</>, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 4</etc/passwd>
91    link("/etc/passwd.91", "/etc/passwd.lock") = 0
91    openat(AT_FDCWD</>, "/etc/passwd+", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 5</etc/passwd+>
91    fsync(5</etc/passwd+>) = 0
91    rename("/etc/passwd+", "/etc/passwd") = 0
`;
    const points = pointsOf(parseLog(`68    execve("/usr/local/bin/node", [...], 0x1 /* 1 var */) = 0\n${text}`), 'children', ROOT);
    assert.deepEqual(
      points.map((p) => `${p.program} ${p.syscall} ${p.path} #${p.when}`),
      [
        'groupadd openat /etc/group+ #1',
        'groupadd fsync /etc/group+ #1',
        'useradd link /etc/passwd.lock #1',
        'useradd openat /etc/passwd+ #1',
        'useradd fsync /etc/passwd+ #1',
        'useradd rename /etc/passwd+ #1',
      ],
    );
    const argv = straceArgv('children', '/tmp/x.log', { point: points[4]!, injection: { kind: 'kill' } });
    assert.ok(argv.includes('/etc/passwd+') && !argv.includes('/etc/group+'), 'the injected run filters on the point file alone');
    assert.equal(argv[argv.length - 1], 'inject=fsync:signal=SIGKILL:when=1');
  });

  it('traces only the helper main thread in the helper lane, and injects errors by name', () => {
    const argv = straceArgv('helper', '/tmp/x.log', { point: { syscall: 'rename', when: 3 }, injection: { kind: 'error', errno: 'EIO' } });
    assert.ok(!argv.includes('-f') && !argv.includes('-P'));
    assert.equal(argv[argv.length - 1], 'inject=rename:error=EIO:when=3');
  });
});
