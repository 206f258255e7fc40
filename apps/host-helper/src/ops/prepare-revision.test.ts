// The prepare-revision plan, exactly: a new Agent, a retry, an interrupted account, a superseded revision.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentLayout, revisionLayout } from '@occ-ssh/markers';
import { exampleArgs } from '@occ-ssh/protocol';
import { planPrepareRevision, type PrepareState } from './prepare-revision.js';

const args = exampleArgs('prepare-revision');
const ROOT = '/var/lib/openclaw-enterprise';
const AGENTS = `${ROOT}/namespaces/edd5c19a1cef/agents`;
const DIR = `${AGENTS}/fcfbd503951a`;
const REV = `${DIR}/revisions/ad30d4665b02`;
const ACCOUNT = 'openclaw-d74736b6a770';
const ACCOUNT_MARKER = `${ROOT}/accounts/${ACCOUNT}.json`;
const ROOT_DIR = { uid: 0, gid: 0, mode: 0o711 };
const owner = { driver: 'compute-ssh', namespaceId: 'ns-01HZX3', agentId: 'agent-7f3a', servicePrincipalId: 'sp-01' } as const;
const creating = { kind: 'account', version: 1, ...owner, account: ACCOUNT, state: 'creating' } as const;
const agentMarker = { kind: 'agent', version: 1, ...owner, account: ACCOUNT, uid: 991, gid: 992, port: 18800 } as const;
const live = { name: ACCOUNT, uid: 991, gid: 992 };

function state(overrides: Partial<PrepareState>): PrepareState {
  const layout = agentLayout(ROOT, '/etc/systemd/system', 'ns-01HZX3', 'agent-7f3a');
  return {
    agentsDir: AGENTS,
    layout,
    paths: revisionLayout(layout.dir, args.revision.id),
    agent: agentMarker,
    account: { state: 'active', account: live },
    port: 18800,
    ports: null,
    staged: false,
    superseded: false,
    passwordFile: true,
    ...overrides,
  };
}

const snapshotSteps = (gid: unknown) => [
  { op: 'ensure-dir', path: REV, owner: ROOT_DIR },
  { op: 'sweep-temps', dir: REV },
  { op: 'write-file', path: `${REV}/openclaw.json`, content: args.configuration.document, owner: { uid: 0, gid, mode: 0o640 } },
  {
    op: 'write-marker',
    path: `${REV}/revision.json`,
    marker: { kind: 'revision', version: 1, ...owner, revisionId: 'rev-0001', revisionNumber: 1, configurationHash: args.configuration.hash, harness: 'openclaw/embedded', auth: 'password' },
  },
];

const agentDirSteps = (uid: unknown, gid: unknown) => [
  { op: 'sweep-temps', dir: DIR },
  { op: 'ensure-dir', path: `${DIR}/home`, owner: { uid, gid, mode: 0o700 }, repairMode: true },
  { op: 'ensure-dir', path: `${DIR}/state`, owner: { uid, gid, mode: 0o700 }, repairMode: true },
  { op: 'ensure-dir', path: `${DIR}/revisions`, owner: ROOT_DIR },
];

describe('planPrepareRevision', () => {
  it('for a new Agent: the account marker, useradd, the Agent directory with its marker, then the snapshot with its marker last', () => {
    const account = { state: 'missing', name: ACCOUNT, markerPath: ACCOUNT_MARKER, creating: null, userExists: false, groupExists: false, startOver: false, shell: '/usr/sbin/nologin' } as const;
    const uid = { uidOf: ACCOUNT };
    const gid = { gidOf: ACCOUNT };
    assert.deepEqual(planPrepareRevision(state({ agent: null, account, passwordFile: false }), args), {
      steps: [
        { op: 'write-marker', path: ACCOUNT_MARKER, marker: creating },
        { op: 'create-account', name: ACCOUNT, home: `${DIR}/home`, marker: ACCOUNT_MARKER, creating, userExists: false, groupExists: false, startOver: false, shell: '/usr/sbin/nologin' },
        { op: 'sweep-temps', dir: AGENTS, prefix: '.fcfbd503951a' },
        { op: 'sweep-temps', dir: DIR },
        { op: 'create-dir-atomic', path: DIR, owner: ROOT_DIR, inside: [{ op: 'write-marker', path: `${DIR}/agent.json`, marker: { ...agentMarker, uid, gid } }] },
        ...agentDirSteps(uid, gid),
        { op: 'create-password-file', path: `${DIR}/gateway-password.env` },
        ...snapshotSteps(gid),
      ],
      result: { port: 18800, account: { name: ACCOUNT, uid, gid }, ready: true, snapshot: 'created' },
    });
  });

  it('for a new Agent with the port index in hand: the index recorded with its port right after its directory', () => {
    const account = { state: 'missing', name: ACCOUNT, markerPath: ACCOUNT_MARKER, creating: null, userExists: false, groupExists: false, startOver: false, shell: '/usr/sbin/nologin' } as const;
    const ports = { edd5c19a1cef: { fcfbd503951a: 18800, '000000000001': 18801 } };
    const { steps } = planPrepareRevision(state({ agent: null, account, ports }), args);
    const created = steps.findIndex((step) => step.op === 'create-dir-atomic');
    assert.deepEqual(steps[created + 1], { op: 'record-ports', ports });
    assert.equal(planPrepareRevision(state({}), args).steps.filter((step) => step.op === 'record-ports').length, 0, 'none for a known Agent');
  });

  it('completes an interrupted account creation without writing its marker again', () => {
    const account = { state: 'missing', name: ACCOUNT, markerPath: ACCOUNT_MARKER, creating, userExists: true, groupExists: false, startOver: true, shell: '/usr/sbin/nologin' } as const;
    const { steps } = planPrepareRevision(state({ agent: null, account }), args);
    assert.deepEqual(steps.slice(0, 2), [
      { op: 'create-account', name: ACCOUNT, home: `${DIR}/home`, marker: ACCOUNT_MARKER, creating, userExists: true, groupExists: false, startOver: true, shell: '/usr/sbin/nologin' },
      { op: 'sweep-temps', dir: AGENTS, prefix: '.fcfbd503951a' },
    ]);
  });

  it('for a known Agent with the revision staged: only the directories are made sure of; the snapshot is verified, not written', () => {
    assert.deepEqual(planPrepareRevision(state({ staged: true }), args), {
      steps: agentDirSteps(991, 992),
      result: { port: 18800, account: live, ready: true, snapshot: 'verified' },
    });
  });

  it('for a known Agent: a new snapshot under the recorded account, and no password file when one exists', () => {
    assert.deepEqual(planPrepareRevision(state({}), args).steps, [...agentDirSteps(991, 992), ...snapshotSteps(992)]);
  });

  it('makes no password file for a trusted-proxy gateway', () => {
    const trusted = { ...args, configuration: { ...args.configuration, auth: 'trusted-proxy' as const } };
    const steps = planPrepareRevision(state({ passwordFile: false }), trusted).steps;
    assert.equal(
      steps.some((step) => step.op === 'create-password-file'),
      false,
    );
  });

  it('changes nothing for a revision the host already moved past', () => {
    assert.deepEqual(planPrepareRevision(state({ superseded: true }), args), {
      steps: [],
      result: { port: 18800, account: live, ready: false, reason: 'superseded', snapshot: 'skipped' },
    });
  });
});
