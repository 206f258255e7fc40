// The delete-namespace plan, exactly: units first, the tree renamed away, the Agents' data emptied as their accounts, root's removal, accounts last.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXAMPLE_MARKERS } from '@occ-ssh/markers';
import { planDeleteNamespace, type DeleteState } from './delete-namespace.js';

const NAMESPACES = '/var/lib/openclaw-enterprise/namespaces';
const UNIT = 'openclaw-enterprise-gateway-fcfbd503951a.service';
const OTHER_UNIT = 'openclaw-enterprise-gateway-0123456789ab.service';
const MARKER = '/var/lib/openclaw-enterprise/accounts/openclaw-d74736b6a770.json';
const account = EXAMPLE_MARKERS.account;
const SETUP_UNIT = 'openclaw-enterprise-setup-fcfbd503951a.service';
const OTHER_SETUP_UNIT = 'openclaw-enterprise-setup-000000000000.service';
const DELETING = `${NAMESPACES}/.deleting-edd5c19a1cef`;

const state = (overrides: Partial<DeleteState>): DeleteState => ({
  dir: `${NAMESPACES}/edd5c19a1cef`,
  deleting: DELETING,
  treeExisted: true,
  agents: [
    { unitName: UNIT, unitFile: `/etc/systemd/system/${UNIT}`, setupUnitName: SETUP_UNIT },
    { unitName: OTHER_UNIT, unitFile: `/etc/systemd/system/${OTHER_UNIT}`, setupUnitName: OTHER_SETUP_UNIT },
  ],
  data: [
    { path: `${DELETING}/agents/fcfbd503951a/home`, uid: 991, gid: 992 },
    { path: `${DELETING}/agents/fcfbd503951a/state`, uid: 991, gid: 992 },
  ],
  twin: null,
  accounts: [{ path: MARKER, marker: account }],
  ...overrides,
});

describe('planDeleteNamespace', () => {
  it('stops every workspace setup and gateway, removes the units with one reload, renames the tree away, empties home and state as the account, removes the tree, then the accounts', () => {
    assert.deepEqual(planDeleteNamespace(state({})), {
      steps: [
        { op: 'stop-native-setup', unit: SETUP_UNIT },
        { op: 'stop-native-setup', unit: OTHER_SETUP_UNIT },
        { op: 'stop-and-disable', unit: UNIT },
        { op: 'stop-and-disable', unit: OTHER_UNIT },
        { op: 'remove-file', path: `/etc/systemd/system/${UNIT}` },
        { op: 'remove-file', path: `/etc/systemd/system/${OTHER_UNIT}` },
        { op: 'daemon-reload' },
        { op: 'rename', from: `${NAMESPACES}/edd5c19a1cef`, to: DELETING },
        { op: 'empty-as-account', path: `${DELETING}/agents/fcfbd503951a/home`, uid: 991, gid: 992 },
        { op: 'empty-as-account', path: `${DELETING}/agents/fcfbd503951a/state`, uid: 991, gid: 992 },
        { op: 'remove-tree', path: DELETING },
        { op: 'remove-account', marker: MARKER, account },
      ],
      result: { treeExisted: true, agentsRemoved: 2, accountsRemoved: ['openclaw-d74736b6a770'] },
    });
  });

  it('a Namespace without Agents needs no reload', () => {
    const steps = planDeleteNamespace(state({ agents: [], data: [], accounts: [] })).steps;
    assert.deepEqual(
      steps.map((step) => step.op),
      ['rename', 'remove-tree'],
    );
  });

  it('a tree an earlier deletion left renamed away is removed before the rename, its data as its account', () => {
    const twin = [{ path: `${DELETING}/agents/0123456789ab/home`, uid: 993, gid: 994 }];
    const steps = planDeleteNamespace(state({ agents: [], data: [], accounts: [], twin })).steps;
    assert.deepEqual(steps, [
      { op: 'empty-as-account', ...twin[0]! },
      { op: 'remove-tree', path: DELETING },
      { op: 'rename', from: `${NAMESPACES}/edd5c19a1cef`, to: DELETING },
      { op: 'remove-tree', path: DELETING },
    ]);
  });

  it('a retry after the rename resumes the renamed-away removal, as the account where one is recorded, then the accounts', () => {
    const twin = [{ path: `${DELETING}/agents/fcfbd503951a/state`, uid: 991, gid: 992 }];
    assert.deepEqual(planDeleteNamespace(state({ treeExisted: false, agents: [], data: [], twin })), {
      steps: [
        { op: 'empty-as-account', ...twin[0]! },
        { op: 'remove-tree', path: DELETING },
        { op: 'remove-account', marker: MARKER, account },
      ],
      result: { treeExisted: false, agentsRemoved: 0, accountsRemoved: ['openclaw-d74736b6a770'] },
    });
  });

  it('with nothing renamed away and no tree, only the accounts are left to remove', () => {
    assert.deepEqual(planDeleteNamespace(state({ treeExisted: false, agents: [], data: [] })).steps, [{ op: 'remove-account', marker: MARKER, account }]);
  });
});
