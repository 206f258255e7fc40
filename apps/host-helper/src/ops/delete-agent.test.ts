// The delete-agent plan, exactly: unit first, the directory renamed into the removal area, the account, then the removal past the lock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXAMPLE_MARKERS, agentLayout, deletingAgentPath } from '@occ-ssh/markers';
import { planDeleteAgent, type DeleteAgentState } from './delete-agent.js';

const ROOT = '/var/lib/openclaw-enterprise';
const layout = agentLayout(ROOT, '/etc/systemd/system', 'ns-01HZX3', 'agent-7f3a');
const DELETING = deletingAgentPath(ROOT, 'ns-01HZX3', 'agent-7f3a');
const AGENTS = `${ROOT}/namespaces/edd5c19a1cef/agents`;
const MARKER = `${ROOT}/accounts/openclaw-d74736b6a770.json`;
const account = { path: MARKER, marker: EXAMPLE_MARKERS.account, userExists: true };

const OWNER = { namespaceId: 'ns-01HZX3', agentId: 'agent-7f3a' };

const state = (overrides: Partial<DeleteAgentState>): DeleteAgentState => ({
  owner: OWNER,
  layout,
  agentsDir: AGENTS,
  deleting: DELETING,
  dirExists: true,
  twinExists: false,
  agent: EXAMPLE_MARKERS.agent,
  unitFileExists: true,
  account,
  ports: null,
  ...overrides,
});

const unitSteps = [{ op: 'stop-native-setup', unit: layout.setupUnitName }, { op: 'stop-and-disable', unit: layout.unitName }, { op: 'remove-file', path: layout.unitFile }, { op: 'daemon-reload' }];
const finish = { op: 'finish-removals', ...OWNER };

describe('planDeleteAgent', () => {
  it('stops a running workspace setup, stops and removes the unit, stages the directory for removal, removes the account, then finishes the removal past the lock', () => {
    assert.deepEqual(planDeleteAgent(state({})), {
      steps: [
        ...unitSteps,
        { op: 'stage-removal', path: layout.dir, ...OWNER },
        { op: 'sweep-temps', dir: AGENTS, prefix: '.fcfbd503951a' },
        { op: 'remove-account', marker: MARKER, account: EXAMPLE_MARKERS.account },
        finish,
      ],
      result: { agentExisted: true, accountRemoved: true, unitRemoved: true, portFreed: 18800 },
    });
  });

  it('with the port index in hand: the index without this Agent is recorded after its directory is staged, before the lock is released', () => {
    const ports = { edd5c19a1cef: { fcfbd503951a: 18800, '000000000001': 18801 } };
    const { steps } = planDeleteAgent(state({ ports }));
    assert.deepEqual(steps.slice(-4), [
      { op: 'sweep-temps', dir: AGENTS, prefix: '.fcfbd503951a' },
      { op: 'record-ports', ports: { edd5c19a1cef: { '000000000001': 18801 } } },
      { op: 'remove-account', marker: MARKER, account: EXAMPLE_MARKERS.account },
      finish,
    ]);
    assert.deepEqual(planDeleteAgent(state({ ports, dirExists: false, agent: null, unitFileExists: false, account: null })).steps, [finish], 'no directory, no change to record');
  });

  it('nothing left: only the removals a cut deletion may have left are finished', () => {
    assert.deepEqual(planDeleteAgent(state({ dirExists: false, agent: null, unitFileExists: false, account: null })), {
      steps: [finish],
      result: { agentExisted: false, accountRemoved: false, unitRemoved: false, portFreed: null },
    });
  });

  it('a directory an earlier version renamed away is staged like the live one, then the account goes', () => {
    const steps = planDeleteAgent(state({ dirExists: false, twinExists: true, agent: null, unitFileExists: false })).steps;
    assert.deepEqual(steps, [
      { op: 'stage-removal', path: DELETING, ...OWNER },
      { op: 'sweep-temps', dir: AGENTS, prefix: '.fcfbd503951a' },
      { op: 'remove-account', marker: MARKER, account: EXAMPLE_MARKERS.account },
      finish,
    ]);
  });

  it('a twin left beside a live directory is staged before it', () => {
    const ops = planDeleteAgent(state({ twinExists: true })).steps.map((step) => step.op);
    assert.deepEqual(ops, ['stop-native-setup', 'stop-and-disable', 'remove-file', 'daemon-reload', 'stage-removal', 'stage-removal', 'sweep-temps', 'remove-account', 'finish-removals']);
  });

  it('nothing is ever run as the account: the tree is removed by root in the removal area', () => {
    const steps = planDeleteAgent(state({ twinExists: true })).steps;
    // A step run as an account names its uid at the top level (as native-setup and write-workspace name theirs).
    assert.deepEqual(
      steps.filter((step) => 'uid' in step || 'run' in step || 'target' in step),
      [],
    );
  });

  it('an owned unit file left without its directory is still stopped and removed', () => {
    const steps = planDeleteAgent(state({ dirExists: false, agent: null, account: null })).steps;
    assert.deepEqual(steps, [...unitSteps.slice(1), finish]);
  });
});
