// Each mutating operation's plan applied against a recording runner: the exact programs, in order,
// that `apply` starts, with file effects in a temp directory and no host.
import assert from 'node:assert/strict';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, describe, it } from 'node:test';
import { agentLayout, deletingAgentPath, EXAMPLE_MARKERS, namespaceLayout, revisionLayout, sha256Hex } from '@occ-ssh/markers';
import { exampleArgs } from '@occ-ssh/protocol';
import type { Command } from '../run/commands.js';
import { apply } from '../plan/apply.js';
import type { Step } from '../plan/steps.js';
import { RecordingRunner, recordingContext } from '../plan/recording-runner.js';
import { nativeSetupArgv } from '../workspace/native-setup.js';
import { indexedPorts } from '../gateway/port-index.js';
import { planActivateRevision, type ActivateState } from './activate-revision.js';
import { planDeleteAgent } from './delete-agent.js';
import { planDeleteNamespace } from './delete-namespace.js';
import { planEnsureNamespace } from './ensure-namespace.js';
import { planRetireRevision } from './retire-revision.js';
import { planSetupWorkspace } from './setup-workspace.js';
import { planStopRevision } from './stop-revision.js';

const base = mkdtempSync(`${tmpdir()}/occ-apply-`);
// Native setup renders the gateway's sandbox, which refuses an Agent directory under /tmp.
const setupBase = mkdtempSync('/var/lib/occ-apply-');
after(() => {
  rmSync(base, { recursive: true, force: true });
  rmSync(setupBase, { recursive: true, force: true });
});

const NAME = 'openclaw-d74736b6a770';
const { account: accountMarker, agent } = EXAMPLE_MARKERS;
const UNIT = 'openclaw-enterprise-gateway-fcfbd503951a.service';
const SETUP_UNIT = 'openclaw-enterprise-setup-fcfbd503951a.service';
const AS_ACCOUNT = 'setpriv --reuid=991 --regid=992 --clear-groups --pdeathsig=SIGKILL --';
/** The sweep of what the UID holds outside its tree, then the look for anything left, before userdel. */
const SWEEP = ['find /tmp /var/tmp /dev/shm /dev/mqueue /run/lock -xdev -uid 991 -delete', 'find /tmp /var/tmp /dev/shm /dev/mqueue /run/lock -xdev -uid 991 -print -quit'];
/** The account's removal, the same in both deletions: its files swept, userdel, then its group looked up again. */
const ACCOUNT_REMOVAL = [`getent passwd ${NAME}`, `getent group ${NAME}`, ...SWEEP, `userdel ${NAME}`, `getent group ${NAME}`];
const PASSWD = { stdout: `${NAME}:x:991:992:OpenClaw Enterprise agent:/home:/usr/sbin/nologin\n` };
const GROUP = { stdout: `${NAME}:x:992:\n` };
const ABSENT = { code: 2 };

let count = 0;
/** A fresh root for one test, with the Agent's directory and the systemd unit directory inside it unless told otherwise. */
function host(unitDirectory?: string, { agent = true, under = base } = {}) {
  const root = `${under}/${(count += 1)}`;
  const units = unitDirectory ?? `${root}/units`;
  mkdirSync(`${root}/units`, { recursive: true });
  const layout = agentLayout(root, units, 'ns-01HZX3', 'agent-7f3a');
  if (agent) mkdirSync(layout.revisions, { recursive: true });
  return { root, units, layout };
}

/** The commands `apply` gives the runner for `steps`, the script answering, and how many per-change checks it made. */
async function recorded(steps: readonly Step[], units: string, script?: (command: Command) => { code?: number; stdout?: string } | undefined, root?: string) {
  const runner = new RecordingRunner(script);
  const { ctx, checks } = recordingContext(runner, units, root);
  await apply(ctx, steps);
  return { commands: runner.commands, checks: checks() };
}

/** rm as the runner would run it: the tree is gone afterwards. */
const removing = (command: Command) => {
  if (command.file === 'rm') rmSync(command.args.at(-1)!, { recursive: true, force: true });
  return undefined;
};

/** A removal's random name, as a placeholder. */
const tokenless = (line: string) => line.replace(/\/\.removing\/[0-9a-f]{16}/, '/.removing/<token>');

const revisionState = (layout: ReturnType<typeof host>['layout']) => {
  const paths = revisionLayout(layout.dir, 'rev-0001');
  return { agent, layout, paths, marker: null, unit: '[Unit]\n', current: paths.currentTarget, served: null, snapshotDir: true };
};

describe('apply against a recording runner', () => {
  it('stop-revision: disable --now, then reset-failed, for the unit in the load path', async () => {
    const { layout } = host('/etc/systemd/system');
    const { commands } = await recorded(planStopRevision(revisionState(layout)).steps, '/etc/systemd/system');
    assert.deepEqual(commands, [`systemctl disable --now --quiet ${UNIT}`, `systemctl reset-failed ${UNIT}`]);
  });

  it('stop-revision: a refused disable of a unit systemd knows is followed by a plain stop', async () => {
    const { layout } = host('/etc/systemd/system');
    const script = (command: Command) => (command.args[0] === 'disable' ? { code: 1 } : command.args[0] === 'show' ? { stdout: 'active\n' } : undefined);
    const { commands } = await recorded(planStopRevision(revisionState(layout)).steps, '/etc/systemd/system', script);
    assert.deepEqual(commands, [`systemctl disable --now --quiet ${UNIT}`, `systemctl show --property=ActiveState --value ${UNIT}`, `systemctl stop ${UNIT}`, `systemctl reset-failed ${UNIT}`]);
  });

  it('stop-revision: a stop that failed after its whole bound (the unit left failed) is not waited for a second time', async () => {
    const { layout } = host('/etc/systemd/system');
    const script = (command: Command) => (command.args[0] === 'disable' ? { code: 1 } : command.args[0] === 'show' ? { stdout: 'failed\n' } : undefined);
    const { commands } = await recorded(planStopRevision(revisionState(layout)).steps, '/etc/systemd/system', script);
    assert.deepEqual(commands, [`systemctl disable --now --quiet ${UNIT}`, `systemctl show --property=ActiveState --value ${UNIT}`, `systemctl reset-failed ${UNIT}`]);
  });

  it('retire-revision of the current revision: the unit down, then rm of the snapshot', async () => {
    const { layout } = host('/etc/systemd/system');
    const state = revisionState(layout);
    mkdirSync(state.paths.dir, { recursive: true });
    const { commands } = await recorded(planRetireRevision(state).steps, '/etc/systemd/system', removing);
    assert.deepEqual(commands, [`systemctl disable --now --quiet ${UNIT}`, `systemctl reset-failed ${UNIT}`, `rm --recursive --force --one-file-system -- ${state.paths.dir}`]);
    assert.equal(existsSync(state.paths.dir), false);
  });

  it('activate-revision, first and after a failure: enable by path, no reload for a unit systemd has not loaded, reset-failed, and a restart systemd would not queue queued once more after another reset', async () => {
    const { units, layout } = host();
    const state: ActivateState = {
      layout,
      paths: revisionLayout(layout.dir, 'rev-0001'),
      agent,
      account: { name: NAME, uid: 991, gid: 992 },
      marker: EXAMPLE_MARKERS.revision,
      unitText: '# unit\n',
      unitChanged: true,
      launchText: '# launch\n',
      launchChanged: true,
      current: null,
      served: null,
      servedCandidate: false,
      alreadyServing: false,
      enabled: false,
      loaded: false,
      needsReload: false,
      failed: true,
      invocation: '',
    };
    let restarts = 0;
    const script = (command: Command) => (command.args[0] === 'restart' && (restarts += 1) === 1 ? { code: 1 } : undefined);
    const { commands } = await recorded(planActivateRevision(state), units, script);
    assert.deepEqual(commands, [
      `systemctl enable --quiet --no-reload ${units}/${UNIT}`,
      `systemctl reset-failed ${UNIT}`,
      `systemctl restart --no-block ${UNIT}`,
      `systemctl reset-failed ${UNIT}`,
      `systemctl restart --no-block ${UNIT}`,
    ]);
    assert.equal(existsSync(layout.unitFile), true);
  });

  it("delete-agent: setup unit stopped, the unit relinked and taken down, one reload, userdel, then root's rm in the removal area, nothing as the account", async () => {
    const { root, units, layout } = host();
    writeFileSync(layout.unitFile, '[Unit]\n');
    for (const dir of [layout.home, layout.state]) {
      mkdirSync(dir);
      chownSync(dir, 991, 992);
    }
    const deleting = deletingAgentPath(root, 'ns-01HZX3', 'agent-7f3a');
    const account = { path: `${root}/accounts/${NAME}.json`, marker: accountMarker, userExists: true };
    const owner = { namespaceId: 'ns-01HZX3', agentId: 'agent-7f3a' };
    const state = { owner, layout, agentsDir: layout.dir.slice(0, layout.dir.lastIndexOf('/')), deleting, dirExists: true, twinExists: false, agent, unitFileExists: true, account, ports: null };
    let userdel = false;
    const script = (command: Command) => {
      removing(command);
      if (command.file === 'userdel') userdel = true;
      // userdel takes the same-named primary group with it (USERGROUPS_ENAB).
      if (command.file === 'getent') return command.args[0] === 'passwd' ? (userdel ? ABSENT : PASSWD) : userdel ? ABSENT : GROUP;
      return undefined;
    };
    const { commands } = await recorded(planDeleteAgent(state).steps, units, script, root);
    assert.deepEqual(commands.map(tokenless), [
      `systemctl stop ${SETUP_UNIT}`,
      `systemctl link --quiet --no-reload ${layout.unitFile}`,
      `systemctl disable --now --quiet ${UNIT}`,
      `systemctl reset-failed ${UNIT}`,
      'systemctl daemon-reload',
      ...ACCOUNT_REMOVAL,
      `rm --recursive --force --one-file-system -- ${root}/.removing/<token>`,
    ]);
    assert.equal(existsSync(layout.dir), false);
    assert.deepEqual(readdirSync(`${root}/.removing`), [], 'the tree and its marker are gone');
  });

  it('delete-namespace: every unit down with one reload, userdel and the groupdel a kept group needs, then rm of the staged tree', async () => {
    const { root, units } = host();
    const ns = namespaceLayout(root, 'ns-01HZX3');
    mkdirSync(ns.dir, { recursive: true });
    const deleting = `${root}/namespaces/.deleting-edd5c19a1cef`;
    const state = {
      namespaceId: 'ns-01HZX3',
      dir: ns.dir,
      deleting,
      treeExisted: true,
      twinExists: false,
      agents: [{ unitName: UNIT, unitFile: `${units}/${UNIT}`, setupUnitName: SETUP_UNIT }],
      accounts: [{ path: `${root}/accounts/${NAME}.json`, marker: accountMarker }],
      ports: null,
    };
    let userdel = false;
    const script = (command: Command) => {
      removing(command);
      if (command.file === 'userdel') userdel = true;
      if (command.file === 'getent') return command.args[0] === 'passwd' ? (userdel ? ABSENT : PASSWD) : GROUP;
      return undefined;
    };
    const { commands } = await recorded(planDeleteNamespace(state).steps, '/etc/systemd/system', script, root);
    assert.deepEqual(commands.map(tokenless), [
      `systemctl stop ${SETUP_UNIT}`,
      `systemctl disable --now --quiet ${UNIT}`,
      `systemctl reset-failed ${UNIT}`,
      'systemctl daemon-reload',
      ...ACCOUNT_REMOVAL,
      `groupdel ${NAME}`,
      `rm --recursive --force --one-file-system -- ${root}/.removing/<token>`,
    ]);
    assert.equal(existsSync(ns.dir), false);
  });

  it('ensure-namespace: files only, no program at all, each change checked, the port index written last', async () => {
    const { root, units } = host(undefined, { agent: false });
    const args = exampleArgs('ensure-namespace');
    const layout = namespaceLayout(root, args.namespace.id);
    mkdirSync(`${root}/namespaces`, { recursive: true });
    const { commands, checks } = await recorded(planEnsureNamespace({ layout, namespaces: `${root}/namespaces`, exists: false, ports: {} }, args).steps, units, undefined, root);
    assert.deepEqual(commands, []);
    assert.ok(checks > 0);
    assert.equal(existsSync(layout.marker), true);
    assert.deepEqual(indexedPorts(root), { edd5c19a1cef: {} });
  });

  it('prepare-revision of a new Agent: useradd with its private group, then the IDs read back', async () => {
    const { root, units, layout } = host();
    const marker = `${root}/accounts/${NAME}.json`;
    mkdirSync(`${root}/accounts`);
    const creating = { ...accountMarker, state: 'creating' as const, uid: undefined, gid: undefined };
    const step = { op: 'create-account', name: NAME, home: layout.home, marker, creating, userExists: false, groupExists: false, startOver: false, shell: '/usr/sbin/nologin' } as const;
    const script = (command: Command) => (command.file === 'getent' ? (command.args[0] === 'passwd' ? PASSWD : GROUP) : undefined);
    const useradd = (group: string) => `useradd --system ${group} --no-create-home --home-dir ${layout.home} --shell /usr/sbin/nologin --comment OpenClaw Enterprise agent ${NAME}`;
    assert.deepEqual((await recorded([step], units, script)).commands, [useradd('--user-group'), `getent passwd ${NAME}`, `getent group ${NAME}`]);
    // An interrupted creation: the group it left is reused; a user it left without its private group as
    // primary is removed with that group and made again.
    assert.deepEqual((await recorded([{ ...step, groupExists: true }], units, script)).commands[0], useradd(`--gid ${NAME}`));
    assert.deepEqual((await recorded([{ ...step, userExists: true, startOver: true }], units, script)).commands.slice(0, 2), [`userdel ${NAME}`, useradd('--user-group')]);
    assert.deepEqual((await recorded([{ ...step, userExists: true, groupExists: true, startOver: true }], units, script)).commands.slice(0, 3), [
      `userdel ${NAME}`,
      `groupdel ${NAME}`,
      useradd('--user-group'),
    ]);
    assert.deepEqual((await recorded([{ ...step, userExists: true, groupExists: true }], units, script)).commands, [`getent passwd ${NAME}`, `getent group ${NAME}`]);
  });

  it('setup-workspace: native setup as the account in systemd-run, the documents written and verified as the account', async () => {
    const { root, units, layout } = host(undefined, { under: setupBase });
    const args = exampleArgs('setup-workspace');
    const account = { uid: 991, gid: 992 };
    const target = { nodePath: '/usr/bin/node', account, dir: `${layout.state}/workspace` };
    const run = { nodePath: '/usr/bin/node', openclawPath: '/opt/openclaw/openclaw.mjs', layout, account, configuration: '{}', port: 18800, root };
    const plan = planSetupWorkspace({ markerPath: `${layout.dir}/workspace-setup.json`, recorded: false, build: { version: '2026.9.6', stock: {} }, target, run, account: NAME }, args);
    const digests = Object.fromEntries(args.setup.documents.map((document) => [document.name, { kind: 'file', sha256: sha256Hex(document.content) }]));
    const requests: string[] = [];
    let inspections = 0;
    const script = (command: Command, stdin?: string) => {
      if (stdin === undefined || stdin === '') return undefined;
      const { op } = JSON.parse(stdin) as { op: string };
      requests.push(op);
      if (op !== 'inspect') return { stdout: '{}' };
      // The first inspection finds nothing to refuse; the one after the second setup, the submitted text.
      return { stdout: JSON.stringify(inspections++ === 0 ? { dir: 'dir', files: {} } : { dir: 'dir', files: digests }) };
    };
    const { commands } = await recorded(plan.unlocked, units, script);
    const setup = ['systemd-run', ...nativeSetupArgv(run, 120_000)].join(' ');
    const node = `${AS_ACCOUNT} /usr/bin/node -e <program>`;
    assert.deepEqual(commands, [node, node, setup, node, node, node, node, node, setup, node, node]);
    assert.deepEqual(requests, ['remove', 'write', 'remove', 'inspect', 'write', 'remove', 'write', 'remove', 'inspect']);
  });
});
