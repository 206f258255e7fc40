// The activation plans, exactly: the switch before the readiness wait, the record after it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentLayout, revisionLayout } from '@occ-ssh/markers';
import { planActivateRevision, planRecordActivation, type ActivateState } from './activate-revision.js';

const DIR = '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a';
const UNIT = 'openclaw-enterprise-gateway-fcfbd503951a.service';
const layout = agentLayout('/var/lib/openclaw-enterprise', '/etc/systemd/system', 'ns-01HZX3', 'agent-7f3a');
const ids = { driver: 'compute-ssh', namespaceId: 'ns-01HZX3', agentId: 'agent-7f3a', servicePrincipalId: 'sp-01' } as const;
const hash = 'a'.repeat(64);
const marker = { kind: 'revision', version: 1, ...ids, revisionId: 'rev-0002', revisionNumber: 2, configurationHash: hash, harness: 'openclaw/embedded', auth: 'password' } as const;

function state(overrides: Partial<ActivateState>): ActivateState {
  return {
    layout,
    paths: revisionLayout(layout.dir, 'rev-0002'),
    agent: { kind: 'agent', version: 1, ...ids, account: 'openclaw-d74736b6a770', uid: 991, gid: 992, port: 18800 },
    account: { name: 'openclaw-d74736b6a770', uid: 991, gid: 992 },
    marker,
    unitText: '# unit\n',
    unitChanged: false,
    launchText: '# launch\n',
    launchChanged: false,
    current: 'revisions/ad30d4665b02',
    served: null,
    servedCandidate: false,
    alreadyServing: false,
    enabled: true,
    loaded: true,
    needsReload: false,
    failed: false,
    invocation: 'a1',
    ...overrides,
  };
}

const restart = (failed = false) => [{ op: 'checkpoint' }, { op: 'restart-unit', unit: UNIT, failed }];

describe('planActivateRevision', () => {
  it('first activation: served.json out, the claim, launch.env, the unit, current, enable, then the restart, with no reload for a unit systemd has not loaded', () => {
    assert.deepEqual(planActivateRevision(state({ unitChanged: true, launchChanged: true, current: null, enabled: false, loaded: false })), [
      { op: 'remove-file', path: `${DIR}/served.json` },
      { op: 'stake-claim', path: `${DIR}/activation` },
      { op: 'write-file', path: `${DIR}/launch.env`, content: '# launch\n', owner: { uid: 0, gid: 0, mode: 0o600 } },
      { op: 'sweep-temps', dir: '/etc/systemd/system', prefix: `.${UNIT}` },
      { op: 'write-file', path: `/etc/systemd/system/${UNIT}`, content: '# unit\n', owner: { uid: 0, gid: 0, mode: 0o644 } },
      { op: 'replace-symlink', path: `${DIR}/current`, target: 'revisions/d87b8f76768c' },
      { op: 'enable-unit', path: `/etc/systemd/system/${UNIT}` },
      ...restart(),
    ]);
  });

  it('a unit systemd has loaded gets one reload when its file changes or it is enabled again', () => {
    const reloads = (overrides: Partial<ActivateState>) => planActivateRevision(state({ current: 'revisions/d87b8f76768c', ...overrides })).filter((step) => step.op === 'daemon-reload').length;
    assert.deepEqual([reloads({ unitChanged: true }), reloads({ enabled: false }), reloads({ unitChanged: true, enabled: false }), reloads({})], [1, 1, 1, 0]);
    assert.deepEqual([reloads({ unitChanged: true, loaded: false }), reloads({ enabled: false, loaded: false })], [0, 0]);
  });

  it('a new revision with the same unit switches current and restarts without a reload', () => {
    assert.deepEqual(planActivateRevision(state({})), [
      { op: 'remove-file', path: `${DIR}/served.json` },
      { op: 'stake-claim', path: `${DIR}/activation` },
      { op: 'replace-symlink', path: `${DIR}/current`, target: 'revisions/d87b8f76768c' },
      ...restart(),
    ]);
  });

  it('reloads for a unit systemd loaded before it was rewritten, and resets a failed one in the restart', () => {
    const steps = planActivateRevision(state({ current: 'revisions/d87b8f76768c', needsReload: true, failed: true }));
    assert.deepEqual(steps, [{ op: 'remove-file', path: `${DIR}/served.json` }, { op: 'stake-claim', path: `${DIR}/activation` }, { op: 'daemon-reload' }, ...restart(true)]);
  });

  it('new placeholder values rewrite only launch.env and restart, with neither the unit nor a reload', () => {
    assert.deepEqual(planActivateRevision(state({ current: 'revisions/d87b8f76768c', launchChanged: true })), [
      { op: 'remove-file', path: `${DIR}/served.json` },
      { op: 'stake-claim', path: `${DIR}/activation` },
      { op: 'write-file', path: `${DIR}/launch.env`, content: '# launch\n', owner: { uid: 0, gid: 0, mode: 0o600 } },
      ...restart(),
    ]);
  });

  it('changes nothing when the revision is already served and ready', () => {
    assert.deepEqual(planActivateRevision(state({ alreadyServing: true })), []);
  });
});

describe('planRecordActivation', () => {
  it('records served.json, then spends the claim', () => {
    assert.deepEqual(planRecordActivation(state({}), { ready: true }, new Date('2026-01-02T03:04:05.000Z')), {
      steps: [
        {
          op: 'write-marker',
          path: `${DIR}/served.json`,
          marker: {
            kind: 'served',
            version: 1,
            driver: 'compute-ssh',
            namespaceId: 'ns-01HZX3',
            agentId: 'agent-7f3a',
            revisionId: 'rev-0002',
            revisionNumber: 2,
            configurationHash: hash,
            port: 18800,
            servedAt: '2026-01-02T03:04:05.000Z',
          },
        },
        { op: 'drop-claim', path: `${DIR}/activation` },
      ],
      result: { ready: true },
    });
  });

  it('a gateway that never got ready: only the claim goes, served.json stays absent', () => {
    assert.deepEqual(planRecordActivation(state({}), { ready: false, reason: 'exited' }, new Date()), { steps: [{ op: 'drop-claim', path: `${DIR}/activation` }], result: { ready: false } });
  });
});
