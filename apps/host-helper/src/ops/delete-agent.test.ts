// The delete-agent plan, exactly: unit first, the directory renamed away, home and state emptied as the account, root's removal, the account last.
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

const state = (overrides: Partial<DeleteAgentState>): DeleteAgentState => ({
  layout,
  agentsDir: AGENTS,
  deleting: DELETING,
  dirExists: true,
  twinExists: false,
  agent: EXAMPLE_MARKERS.agent,
  unitFileExists: true,
  account,
  ...overrides,
});

const unitSteps = [{ op: 'stop-native-setup', unit: layout.setupUnitName }, { op: 'stop-and-disable', unit: layout.unitName }, { op: 'remove-file', path: layout.unitFile }, { op: 'daemon-reload' }];
const asAccount = [
  { op: 'empty-as-account', path: `${DELETING}/home`, uid: 991, gid: 992 },
  { op: 'empty-as-account', path: `${DELETING}/state`, uid: 991, gid: 992 },
];

describe('planDeleteAgent', () => {
  it('stops a running workspace setup, stops and removes the unit, renames the directory away, empties home and state as the account, removes the tree, then the account', () => {
    assert.deepEqual(planDeleteAgent(state({})), {
      steps: [
        ...unitSteps,
        { op: 'rename', from: layout.dir, to: DELETING },
        ...asAccount,
        { op: 'remove-tree', path: DELETING },
        { op: 'sweep-temps', dir: AGENTS, prefix: '.fcfbd503951a' },
        { op: 'remove-account', marker: MARKER, account: EXAMPLE_MARKERS.account },
      ],
      result: { agentExisted: true, accountRemoved: true, unitRemoved: true, portFreed: 18800 },
    });
  });

  it('nothing left is success with no step', () => {
    assert.deepEqual(planDeleteAgent(state({ dirExists: false, agent: null, unitFileExists: false, account: null })), {
      steps: [],
      result: { agentExisted: false, accountRemoved: false, unitRemoved: false, portFreed: null },
    });
  });

  it('a directory a cut deletion renamed away is resumed as its account, then the account goes', () => {
    const steps = planDeleteAgent(state({ dirExists: false, twinExists: true, agent: null, unitFileExists: false })).steps;
    assert.deepEqual(steps, [
      ...asAccount,
      { op: 'remove-tree', path: DELETING },
      { op: 'sweep-temps', dir: AGENTS, prefix: '.fcfbd503951a' },
      { op: 'remove-account', marker: MARKER, account: EXAMPLE_MARKERS.account },
    ]);
  });

  it('a twin left beside a live directory is removed before the rename', () => {
    const ops = planDeleteAgent(state({ twinExists: true })).steps.map((step) => step.op);
    assert.deepEqual(ops, [
      'stop-native-setup',
      'stop-and-disable',
      'remove-file',
      'daemon-reload',
      'empty-as-account',
      'empty-as-account',
      'remove-tree',
      'rename',
      'empty-as-account',
      'empty-as-account',
      'remove-tree',
      'sweep-temps',
      'remove-account',
    ]);
  });

  it('without its user, nothing is run as the account: root removes the tree alone', () => {
    const steps = planDeleteAgent(state({ dirExists: false, twinExists: true, agent: null, unitFileExists: false, account: { ...account, userExists: false } })).steps;
    assert.deepEqual(
      steps.map((step) => step.op),
      ['remove-tree', 'sweep-temps', 'remove-account'],
    );
  });

  it('an owned unit file left without its directory is still stopped and removed', () => {
    const steps = planDeleteAgent(state({ dirExists: false, agent: null, account: null })).steps;
    assert.deepEqual(steps, unitSteps.slice(1));
  });
});
