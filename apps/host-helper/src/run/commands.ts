// Every external program the helper runs, as data: pure builders of the exact argv, decided by the
// caller from what it read. Nothing here runs anything (system.ts does); the unit tests assert each
// argv as it is, so what useradd or systemctl is asked to do is proven without a host.
import { assertNever } from '@occ-ssh/protocol';

/** One program and its arguments: never a shell string. */
export interface Command {
  readonly file: string;
  readonly args: readonly string[];
}

const command = (file: string, args: readonly string[]): Command => Object.freeze({ file, args: Object.freeze([...args]) });

export const getentArgv = (database: 'passwd' | 'group', key: string) => command('getent', [database, key]);

/**
 * One useradd makes the private group too; a group an interrupted attempt left is reused by name.
 * A system account unless the Installation names an ID range: then an ordinary one whose UID and GID
 * come from that range, with no subordinate IDs (useradd gives an ordinary account 65,536 by default,
 * which newuidmap would let it map into a user namespace of its own).
 */
export function useraddArgv(account: { name: string; home: string; shell: string; groupExists: boolean; idRange?: { start: number; end: number } | undefined }): Command {
  const group = account.groupExists ? ['--gid', account.name] : ['--user-group'];
  const range = account.idRange;
  const kind = range
    ? ['--key', `UID_MIN=${range.start}`, '--key', `UID_MAX=${range.end}`, '--key', `GID_MIN=${range.start}`, '--key', `GID_MAX=${range.end}`, '--key', 'SUB_UID_COUNT=0', '--key', 'SUB_GID_COUNT=0']
    : ['--system'];
  return command('useradd', [...kind, ...group, '--no-create-home', '--home-dir', account.home, '--shell', account.shell, '--comment', 'OpenClaw Enterprise agent', account.name]);
}

export const userdelArgv = (name: string) => command('userdel', [name]);
export const groupdelArgv = (name: string) => command('groupdel', [name]);

/** What the helper asks of systemctl; `show` reads named properties, `value` without their names. */
export type SystemctlRequest =
  | { verb: 'daemon-reload' | 'version' }
  | { verb: 'reset-failed' | 'stop' | 'is-active' | 'is-enabled' | 'disable-now'; unit: string }
  /** Handed to systemd as a job, not waited for: the old process's stop and the new one's start. */
  | { verb: 'restart'; unit: string }
  /** By the unit file's absolute path, without the reload each would run itself. */
  | { verb: 'enable' | 'link'; path: string }
  /** Several units print one block each, in order, separated by a blank line. */
  | { verb: 'show'; unit: string | readonly string[]; properties: readonly string[]; value?: true }
  /** Every loaded unit whose name matches `pattern`, inactive ones included, as JSON. */
  | { verb: 'list-units'; pattern: string };

export function systemctlArgv(request: SystemctlRequest): Command {
  switch (request.verb) {
    case 'daemon-reload':
      return command('systemctl', ['daemon-reload']);
    case 'version':
      return command('systemctl', ['--version']);
    case 'reset-failed':
    case 'stop':
      return command('systemctl', [request.verb, request.unit]);
    case 'restart':
      return command('systemctl', ['restart', '--no-block', request.unit]);
    case 'is-active':
    case 'is-enabled':
      return command('systemctl', [request.verb, '--quiet', request.unit]);
    case 'disable-now':
      return command('systemctl', ['disable', '--now', '--quiet', request.unit]);
    case 'enable':
    case 'link':
      return command('systemctl', [request.verb, '--quiet', '--no-reload', request.path]);
    case 'show':
      return command('systemctl', ['show', `--property=${request.properties.join(',')}`, ...(request.value ? ['--value'] : []), ...(typeof request.unit === 'string' ? [request.unit] : request.unit)]);
    case 'list-units':
      return command('systemctl', ['list-units', '--all', '--output=json', '--', request.pattern]);
    default:
      return assertNever(request, 'systemctl request');
  }
}

export const systemdRunArgv = (args: readonly string[]) => command('systemd-run', args);
export const journalctlArgv = (args: readonly string[]) => command('journalctl', args);
export const loggerArgv = (tag: string, priority: string, line: string) => command('logger', ['-t', tag, '-p', priority, '--', line]);
export const ssListenersArgv = (ss: string, port: number) => command(ss, ['-H', '-t', '-n', '-e', 'state', 'listening', `sport = :${port}`]);

/** Removes a tree as root: never through a link, never into another mount. */
export const rmTreeArgv = (path: string) => command('rm', ['--recursive', '--force', '--one-file-system', '--', path]);

export interface AccountIds {
  uid: number;
  gid: number;
}

/** The signal a child gets when the helper dies (PR_SET_PDEATHSIG); setpriv has `--pdeathsig` since util-linux 2.33. */
const PARENT_DEATH = '--pdeathsig=SIGKILL';

/**
 * `inner` run as exactly the account's uid and gid, with no supplementary groups, killed when the
 * helper dies: the kernel clears the parent-death signal on a change of credentials, so setpriv sets
 * it after its own.
 */
export function asAccountArgv(account: AccountIds, inner: Command): Command {
  return command('setpriv', [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', PARENT_DEATH, '--', inner.file, ...inner.args]);
}

/** `inner` killed when the helper dies; an as-account command already is. */
export function diesWithHelperArgv(inner: Command): Command {
  if (inner.file === 'setpriv' && inner.args.includes(PARENT_DEATH)) return inner;
  return command('setpriv', [PARENT_DEATH, '--', inner.file, ...inner.args]);
}

/** A fixed program for node, as text on argv (its input comes on stdin, never here). */
export const nodeEvalArgv = (nodePath: string, program: string) => command(nodePath, ['-e', program]);

export const duBytesArgv = (path: string) => command('du', ['--summarize', '--bytes', '--one-file-system', path]);

export type IpcKind = 'shm' | 'msg' | 'sem';
const IPCRM_FLAG: Record<IpcKind, string> = { shm: '--shmem-id', msg: '--queue-id', sem: '--semaphore-id' };
/** Removes one SysV IPC object by its ID. */
export const ipcrmArgv = (kind: IpcKind, id: number) => command('ipcrm', [IPCRM_FLAG[kind], String(id)]);

/**
 * What `uid` owns under each of `dirs` (one missing is skipped), never through a link, never into
 * another mount: deleted (a directory only once empty), or the first one printed.
 */
export function findOwnedArgv(dirs: readonly string[], uid: number, what: 'delete' | 'first'): Command {
  return command('find', [...dirs, '-xdev', '-uid', String(uid), ...(what === 'delete' ? ['-delete'] : ['-print', '-quit'])]);
}

/** Holds an exclusive flock on the caller's fd 3 (see lock/flock-child.ts), exiting `conflictExit` when the wait ends. */
export const flockHoldArgv = (seconds: string, conflictExit: number) =>
  command('flock', ['--exclusive', '--close', '--wait', seconds, '--conflict-exit-code', String(conflictExit), '/proc/self/fd/3', 'cat']);
