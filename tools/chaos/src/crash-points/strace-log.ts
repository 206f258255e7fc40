// strace command lines for crash points and injected errors, and the reading of their logs: which
// calls changed the disk, and which call an injection hit. Pure.

/** Every system call that can change what is on disk (open/write only with the right flags or fd). */
const MUTATING_SYSCALLS = [
  'rename',
  'renameat',
  'renameat2',
  'unlink',
  'unlinkat',
  'symlink',
  'symlinkat',
  'link',
  'linkat',
  'mkdir',
  'mkdirat',
  'rmdir',
  'open',
  'openat',
  'openat2',
  'creat',
  'write',
  'pwrite64',
  'writev',
  'pwritev',
  'pwritev2',
  'fsync',
  'fdatasync',
  'fchown',
  'fchownat',
  'fchmod',
  'fchmodat',
] as const;

/**
 * Shadow's databases, their backups, temporaries and lock files: the paths the children lane
 * filters on (`strace -P`), so that only useradd/groupadd/userdel/groupdel calls are counted.
 */
const SHADOW_PATHS = ['passwd', 'shadow', 'group', 'gshadow', 'subuid', 'subgid'].flatMap((name) => ['', '+', '-', '.lock'].map((suffix) => `/etc/${name}${suffix}`)).concat('/etc/.pwd.lock');

/** The helper's children, also named to `-P` so that their execve is logged (and each pid gets its program). */
const CHILD_PROGRAMS = ['/usr/sbin/useradd', '/usr/sbin/groupadd', '/usr/sbin/userdel', '/usr/sbin/groupdel', '/usr/bin/getent', '/usr/bin/systemctl', '/usr/bin/flock'];

export type Lane = 'helper' | 'children';

/** What strace injects at a point: a SIGKILL, or an error returned instead of running the call. */
export type Injection = { kind: 'kill' } | { kind: 'error'; errno: 'ENOSPC' | 'EIO' };

export interface Point {
  syscall: string;
  /** strace's own count: the k-th call of this system call in this tracee (`when=k`). */
  when: number;
  /** Ordinal among the mutating calls of this system call in the tracee (what a retry must hit). */
  ordinal: number;
  /** The call, for reports: name and first path, temp suffixes and the root shortened. */
  what: string;
  /** The program that made it (`node` for the helper). */
  program: string;
  /** The `when` of each mutating call of this system call up to this one (to move the number when it drifted). */
  whens: number[];
  /** Children lane: the shadow file the point is numbered on and filtered by. */
  path?: string;
}

export interface Call {
  pid: number;
  syscall: string;
  args: string;
  result: string;
}

export interface ParsedLog {
  calls: Call[];
  /** pid → program, from execve lines (the first pid is the helper itself). */
  programs: Map<number, string>;
  killed: number[];
  firstPid: number | undefined;
}

/** The strace argv (before `-- node - <header>`) for counting or injecting in one lane. */
export function straceArgv(lane: Lane, logPath: string, inject?: { point: Pick<Point, 'syscall' | 'when' | 'path'>; injection: Injection }): string[] {
  // Helper only: no -f, so only the helper's main thread is traced (its file work is synchronous;
  // libuv's threads, and useradd, systemctl and flock, run untraced).
  // Children: -f, and only calls on shadow's files count (strace counts `when=` after the -P
  // filter), so the helper's own renames and writes never reach a child's number first.
  const argv = ['strace', ...(lane === 'children' ? ['-f'] : []), '-qq', '-y', '-s', '0', '-o', logPath, '-e', `trace=${MUTATING_SYSCALLS.join(',')},execve`];
  if (lane === 'children') for (const path of [...(inject?.point.path ? [inject.point.path] : SHADOW_PATHS), ...CHILD_PROGRAMS]) argv.push('-P', path);
  if (inject) {
    const what = inject.injection.kind === 'kill' ? 'signal=SIGKILL' : `error=${inject.injection.errno}`;
    argv.push('-e', `inject=${inject.point.syscall}:${what}:when=${inject.point.when}`);
  }
  return argv;
}

/** The calls that change a file's name, links or attributes: each is a step a kill can land between. */
const STEP_SYSCALLS = MUTATING_SYSCALLS.filter((call) => !/^(open|creat|write|pwrite)/.test(call));

/**
 * strace argv that delays each of those calls of the helper and its children by `delayMs`, on
 * entry, and logs nothing: a host whose disk is slow. Opens and writes run at full speed (they
 * include the helper's own output); only the tracee's filtered calls stop (`--seccomp-bpf`).
 */
export function delayArgv(delayMs: number): string[] {
  return ['strace', '-f', '--seccomp-bpf', '-qq', '-o', '/dev/null', '-e', `trace=${STEP_SYSCALLS.join(',')}`, '-e', `inject=${STEP_SYSCALLS.join(',')}:delay_enter=${delayMs * 1000}`];
}

// With -f every line starts with the pid; tracing one thread, strace leaves it out (pid 0 here).
const LINE = /^(?:(\d+) +)?(\S.*)$/;
const CALL = /^([a-z0-9_]+)\((.*)$/;
const RESUMED = /^<\.\.\. ([a-z0-9_]+) resumed>(.*)$/;

/** Splits `args) = result` at the last `) = ` (arguments may contain parentheses; one tracee's lines pad before `=`). */
function splitResult(rest: string): { args: string; result: string } {
  const split = /^(.*)\) +=\s(.*)$/s.exec(rest);
  return split ? { args: split[1]!, result: split[2]! } : { args: rest, result: '?' };
}

export function parseLog(text: string): ParsedLog {
  const calls: Call[] = [];
  const programs = new Map<number, string>();
  const killed: number[] = [];
  const pending = new Map<number, { syscall: string; args: string }>();
  let firstPid: number | undefined;
  for (const raw of text.split('\n')) {
    const line = LINE.exec(raw);
    if (!line) continue;
    const pid = Number(line[1] ?? 0);
    const body = line[2]!;
    firstPid ??= pid;
    if (body.startsWith('+++ killed by SIGKILL')) {
      killed.push(pid);
      continue;
    }
    const resumed = RESUMED.exec(body);
    if (resumed) {
      const start = pending.get(pid);
      pending.delete(pid);
      const { args, result } = splitResult(`${start?.args ?? ''}${resumed[2]!}`);
      calls.push({ pid, syscall: resumed[1]!, args, result });
      continue;
    }
    const call = CALL.exec(body);
    if (!call) continue;
    const rest = call[2]!;
    if (rest.endsWith('<unfinished ...>')) {
      pending.set(pid, { syscall: call[1]!, args: rest.slice(0, -'<unfinished ...>'.length).trimEnd() });
      continue;
    }
    if (call[1] === 'execve') {
      const path = /^"([^"]*)"/.exec(rest)?.[1];
      if (path && !rest.includes('= -1')) programs.set(pid, path.slice(path.lastIndexOf('/') + 1));
      continue;
    }
    calls.push({ pid, syscall: call[1]!, ...splitResult(rest) });
  }
  // A call cut by the kill never printed its end: it is the one the injection hit.
  for (const [pid, start] of pending) calls.push({ pid, syscall: start.syscall, args: start.args, result: '?' });
  return { calls, programs, killed, firstPid };
}

/** The file a descriptor argument names (`21</var/lib/x>`), when it is a file on disk. */
function fdPath(args: string): string | undefined {
  const path = /^-?\d+<([^>]*)>/.exec(args)?.[1];
  return path?.startsWith('/') ? path : undefined;
}

/** Whether a call can change what is on disk (open without create/truncate, writes to pipes and /dev do not). */
export function isMutating(call: Call): boolean {
  switch (call.syscall) {
    case 'open':
    case 'openat':
    case 'openat2':
      return /O_CREAT|O_TRUNC/.test(call.args);
    case 'write':
    case 'pwrite64':
    case 'writev':
    case 'pwritev':
    case 'pwritev2': {
      const path = fdPath(call.args);
      return path !== undefined && !path.startsWith('/dev/') && !path.startsWith('/proc/');
    }
    default:
      return (MUTATING_SYSCALLS as readonly string[]).includes(call.syscall);
  }
}

/** Name and first path of a call, with random temp suffixes and the Namespace/Agent hashes shortened so runs compare. */
function describeCall(call: Call, root: string): string {
  const path = /"([^"]+)"/.exec(call.args)?.[1] ?? fdPath(call.args) ?? '';
  const short = path
    .replace(root, '<root>')
    .replace(/\.tmp-[0-9a-f]+/g, '.tmp-*')
    .replace(/\b[0-9a-f]{12}\b/g, '#')
    .replace(/-[0-9a-f]{12}\b/g, '-#')
    .replace(/(\/etc\/[a-z]+)\.\d+$/, '$1.<pid>');
  return `${call.syscall} ${short}`.trim();
}

function programOf(log: ParsedLog, pid: number): string {
  if (pid === log.firstPid) return 'node';
  return log.programs.get(pid) ?? 'thread';
}

/** The shadow files a call names (by path or descriptor): what `strace -P` matches it on. */
function shadowPathsOf(call: Call): string[] {
  const named = [...call.args.matchAll(/"([^"]+)"|<(\/[^>]*)>/g)].map((m) => m[1] ?? m[2]!);
  return named.filter((path) => SHADOW_PATHS.includes(path));
}

/**
 * The crash points of one counting run: every mutating call of the lane's tracees, numbered the
 * way strace counts for `when=` (per system call, per tracee, every traced call). A child's call
 * is numbered among the calls on its own shadow file, which its point then filters on (`-P`), so
 * that groupadd's calls on other files never reach useradd's number first.
 */
export function pointsOf(log: ParsedLog, lane: Lane, root: string): Point[] {
  const points: Point[] = [];
  const mine = log.calls.filter((call) => (lane === 'helper' ? call.pid === log.firstPid : programOf(log, call.pid) !== 'node' && programOf(log, call.pid) !== 'thread'));
  for (const [index, call] of mine.entries()) {
    // A call that failed (mkdir of an existing parent) changed nothing: not a point of its own.
    if (!isMutating(call) || call.result.startsWith('-1')) continue;
    const path = lane === 'children' ? shadowPathsOf(call)[0] : undefined;
    if (lane === 'children' && path === undefined) continue;
    const same = mine.slice(0, index + 1).filter((other) => other.pid === call.pid && other.syscall === call.syscall && (path === undefined || shadowPathsOf(other).includes(path)));
    const whens = same.flatMap((other, at) => (isMutating(other) && !other.result.startsWith('-1') ? [at + 1] : []));
    points.push({ syscall: call.syscall, when: same.length, ordinal: whens.length, whens, what: describeCall(call, root), program: programOf(log, call.pid), ...(path ? { path } : {}) });
  }
  return points;
}

export interface Hit {
  what: string;
  program: string;
  mutating: boolean;
  /** Mutating calls of the same system call in the same tracee before the hit one, plus one. */
  ordinal: number;
}

/** The call an injection hit: the call of the given system call whose result is `?` (killed) or the injected error. */
export function hitOf(log: ParsedLog, syscall: string, injection: Injection, root: string): Hit | undefined {
  const counts = new Map<string, number>();
  for (const call of log.calls) {
    if (call.syscall !== syscall) continue;
    const key = `${call.pid}`;
    // An injected error reads -1 too; only a call that failed of itself changed nothing.
    const mutating = isMutating(call) && (!call.result.startsWith('-1') || call.result.endsWith('(INJECTED)'));
    const ordinal = (counts.get(key) ?? 0) + (mutating ? 1 : 0);
    counts.set(key, ordinal);
    const hit = injection.kind === 'kill' ? call.result.startsWith('?') && log.killed.includes(call.pid) : call.result.includes('(INJECTED)');
    if (hit) return { what: describeCall(call, root), program: programOf(log, call.pid), mutating, ordinal: mutating ? ordinal : ordinal + 1 };
  }
  return undefined;
}
