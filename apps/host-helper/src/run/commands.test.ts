// The exact argv of every external command the helper runs, with no host; and the one module that starts them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  asAccountArgv,
  duBytesArgv,
  diesWithHelperArgv,
  findOwnedArgv,
  ipcrmArgv,
  flockHoldArgv,
  getentArgv,
  groupdelArgv,
  journalctlArgv,
  loggerArgv,
  nodeEvalArgv,
  rmTreeArgv,
  ssListenersArgv,
  systemctlArgv,
  systemdRunArgv,
  useraddArgv,
  userdelArgv,
} from './commands.js';

const UNIT = 'openclaw-enterprise-gateway-fcfbd503951a.service';
const FILE = `/etc/systemd/system/${UNIT}`;
const NAME = 'openclaw-d74736b6a770';
const argv = (command: { file: string; args: readonly string[] }) => [command.file, ...command.args];

describe('account commands', () => {
  it('useradd makes a system user without a home directory, with its private group or the one an interrupted attempt left', () => {
    const account = { name: NAME, home: '/srv/a/home', shell: '/usr/sbin/nologin', groupExists: false };
    const rest = ['--no-create-home', '--home-dir', '/srv/a/home', '--shell', '/usr/sbin/nologin', '--comment', 'OpenClaw Enterprise agent', NAME];
    assert.deepEqual(argv(useraddArgv(account)), ['useradd', '--system', '--user-group', ...rest]);
    assert.deepEqual(argv(useraddArgv({ ...account, groupExists: true })), ['useradd', '--system', '--gid', NAME, ...rest]);
  });

  it('with an ID range, useradd makes an ordinary user whose UID and GID come from it, with no subordinate IDs', () => {
    const account = { name: NAME, home: '/srv/a/home', shell: '/usr/sbin/nologin', groupExists: false, idRange: { start: 20000, end: 29999 } };
    const keys = ['--key', 'UID_MIN=20000', '--key', 'UID_MAX=29999', '--key', 'GID_MIN=20000', '--key', 'GID_MAX=29999', '--key', 'SUB_UID_COUNT=0', '--key', 'SUB_GID_COUNT=0'];
    const rest = ['--no-create-home', '--home-dir', '/srv/a/home', '--shell', '/usr/sbin/nologin', '--comment', 'OpenClaw Enterprise agent', NAME];
    assert.deepEqual(argv(useraddArgv(account)), ['useradd', ...keys, '--user-group', ...rest]);
    assert.deepEqual(argv(useraddArgv({ ...account, groupExists: true })), ['useradd', ...keys, '--gid', NAME, ...rest]);
  });

  it('getent, userdel and groupdel name the account alone', () => {
    assert.deepEqual(argv(getentArgv('passwd', NAME)), ['getent', 'passwd', NAME]);
    assert.deepEqual(argv(getentArgv('group', NAME)), ['getent', 'group', NAME]);
    assert.deepEqual(argv(userdelArgv(NAME)), ['userdel', NAME]);
    assert.deepEqual(argv(groupdelArgv(NAME)), ['groupdel', NAME]);
  });
});

describe('systemctlArgv', () => {
  it('changes: reload, restart (queued), reset-failed, stop, disable --now, and enable and link by path without a reload', () => {
    assert.deepEqual(argv(systemctlArgv({ verb: 'daemon-reload' })), ['systemctl', 'daemon-reload']);
    assert.deepEqual(argv(systemctlArgv({ verb: 'restart', unit: UNIT })), ['systemctl', 'restart', '--no-block', UNIT]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'reset-failed', unit: UNIT })), ['systemctl', 'reset-failed', UNIT]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'stop', unit: UNIT })), ['systemctl', 'stop', UNIT]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'disable-now', unit: UNIT })), ['systemctl', 'disable', '--now', '--quiet', UNIT]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'enable', path: FILE })), ['systemctl', 'enable', '--quiet', '--no-reload', FILE]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'link', path: FILE })), ['systemctl', 'link', '--quiet', '--no-reload', FILE]);
  });

  it('queries: is-active, is-enabled, show with named properties, a bare value, and the version', () => {
    assert.deepEqual(argv(systemctlArgv({ verb: 'is-active', unit: UNIT })), ['systemctl', 'is-active', '--quiet', UNIT]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'is-enabled', unit: UNIT })), ['systemctl', 'is-enabled', '--quiet', UNIT]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'show', unit: UNIT, properties: ['NeedDaemonReload', 'ActiveState', 'Result'] })), [
      'systemctl',
      'show',
      '--property=NeedDaemonReload,ActiveState,Result',
      UNIT,
    ]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'show', unit: UNIT, properties: ['LoadState'], value: true })), ['systemctl', 'show', '--property=LoadState', '--value', UNIT]);
    assert.deepEqual(argv(systemctlArgv({ verb: 'show', unit: [UNIT, 'b.service'], properties: ['Id', 'ActiveState'] })), ['systemctl', 'show', '--property=Id,ActiveState', UNIT, 'b.service']);
    assert.deepEqual(argv(systemctlArgv({ verb: 'version' })), ['systemctl', '--version']);
  });
});

describe('tree and account-bound commands', () => {
  it('rm never follows a link nor leaves the file system, and ends its options before the path', () => {
    assert.deepEqual(argv(rmTreeArgv('/srv/x')), ['rm', '--recursive', '--force', '--one-file-system', '--', '/srv/x']);
  });

  it('setpriv runs the inner command as exactly the account, without supplementary groups', () => {
    const ids = { uid: 991, gid: 992 };
    const asAccount = ['setpriv', '--reuid=991', '--regid=992', '--clear-groups', '--pdeathsig=SIGKILL', '--'];
    assert.deepEqual(argv(asAccountArgv(ids, duBytesArgv('/srv/c'))), [...asAccount, 'du', '--summarize', '--bytes', '--one-file-system', '/srv/c']);
    assert.deepEqual(argv(asAccountArgv(ids, nodeEvalArgv('/usr/bin/node', 'program'))), [...asAccount, '/usr/bin/node', '-e', 'program']);
  });
});

describe('children that die with the helper, and what a UID leaves behind', () => {
  it('a root child is wrapped to die with the helper; an as-account one already carries the signal, set after its credentials', () => {
    assert.deepEqual(argv(diesWithHelperArgv(rmTreeArgv('/srv/x'))), ['setpriv', '--pdeathsig=SIGKILL', '--', 'rm', '--recursive', '--force', '--one-file-system', '--', '/srv/x']);
    const asAccount = asAccountArgv({ uid: 991, gid: 992 }, duBytesArgv('/srv/c'));
    assert.equal(diesWithHelperArgv(asAccount), asAccount);
  });

  it('files of a UID are found and deleted without following a link or leaving the mount; IPC objects go by ID', () => {
    assert.deepEqual(argv(findOwnedArgv(['/tmp', '/dev/shm'], 991, 'delete')), ['find', '/tmp', '/dev/shm', '-xdev', '-uid', '991', '-delete']);
    assert.deepEqual(argv(findOwnedArgv(['/tmp'], 991, 'first')), ['find', '/tmp', '-xdev', '-uid', '991', '-print', '-quit']);
    assert.deepEqual(
      (['shm', 'msg', 'sem'] as const).map((kind) => argv(ipcrmArgv(kind, 7))),
      [
        ['ipcrm', '--shmem-id', '7'],
        ['ipcrm', '--queue-id', '7'],
        ['ipcrm', '--semaphore-id', '7'],
      ],
    );
  });
});

describe('lock, journal and audit commands', () => {
  it('flock holds the descriptor the helper verified (fd 3), with its own exit code for a wait that ran out', () => {
    assert.deepEqual(argv(flockHoldArgv('30.0', 75)), ['flock', '--exclusive', '--close', '--wait', '30.0', '--conflict-exit-code', '75', '/proc/self/fd/3', 'cat']);
  });

  it('journalctl, systemd-run, logger and ss take exactly the arguments given', () => {
    assert.deepEqual(argv(journalctlArgv(['--no-pager', `_SYSTEMD_UNIT=${UNIT}`])), ['journalctl', '--no-pager', `_SYSTEMD_UNIT=${UNIT}`]);
    assert.deepEqual(argv(systemdRunArgv(['--unit=x', '--', '/usr/bin/node'])), ['systemd-run', '--unit=x', '--', '/usr/bin/node']);
    assert.deepEqual(argv(loggerArgv('occ-ssh-helper', 'authpriv.notice', 'op=x')), ['logger', '-t', 'occ-ssh-helper', '-p', 'authpriv.notice', '--', 'op=x']);
    assert.deepEqual(argv(ssListenersArgv('/usr/bin/ss', 18800)), ['/usr/bin/ss', '-H', '-t', '-n', '-e', 'state', 'listening', 'sport = :18800']);
  });

  it('a built command cannot be changed afterwards', () => {
    const command = userdelArgv(NAME);
    assert.throws(() => (command.args as string[]).push('--remove'));
  });
});

describe('the one spawn path', () => {
  it('only system.ts of the helper sources reaches node:child_process, by import, require or getBuiltinModule', () => {
    const src = new URL('..', import.meta.url);
    const sources = (readdirSync(src, { recursive: true }) as string[]).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    const ways = [/^import (?!type )[^;]*from '(node:)?child_process'/m, /\b(require|getBuiltinModule)\(\s*['"](node:)?child_process['"]/];
    const reaching = sources.filter((name) => ways.some((way) => way.test(readFileSync(new URL(name, src), 'utf8'))));
    assert.deepEqual(reaching, ['run/system.ts']);
  });
});
