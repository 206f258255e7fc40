// The delete-namespace plan, exactly: units first, the tree renamed away before removal, accounts last.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXAMPLE_MARKERS } from '@occ-ssh/markers';
import { planDeleteNamespace, type DeleteState } from './delete-namespace.js';

const NAMESPACES = '/var/lib/openclaw-enterprise/namespaces';
const UNIT = 'openclaw-enterprise-gateway-fcfbd503951a.service';
const OTHER_UNIT = 'openclaw-enterprise-gateway-0123456789ab.service';
const MARKER = '/var/lib/openclaw-enterprise/accounts/openclaw-d74736b6a770.json';
const account = EXAMPLE_MARKERS.account;

const state = (overrides: Partial<DeleteState>): DeleteState => ({
  dir: `${NAMESPACES}/edd5c19a1cef`,
  deleting: `${NAMESPACES}/.deleting-edd5c19a1cef`,
  treeExisted: true,
  agents: [
    { unitName: UNIT, unitFile: `/etc/systemd/system/${UNIT}` },
    { unitName: OTHER_UNIT, unitFile: `/etc/systemd/system/${OTHER_UNIT}` },
  ],
  accounts: [{ path: MARKER, marker: account }],
  ...overrides,
});

describe('planDeleteNamespace', () => {
  it('stops every gateway, removes the units with one reload, renames the tree away, removes it, then the accounts', () => {
    assert.deepEqual(planDeleteNamespace(state({})), {
      steps: [
        { op: 'stop-and-disable', unit: UNIT },
        { op: 'stop-and-disable', unit: OTHER_UNIT },
        { op: 'remove-file', path: `/etc/systemd/system/${UNIT}` },
        { op: 'remove-file', path: `/etc/systemd/system/${OTHER_UNIT}` },
        { op: 'daemon-reload' },
        { op: 'remove-tree', path: `${NAMESPACES}/.deleting-edd5c19a1cef` },
        { op: 'rename', from: `${NAMESPACES}/edd5c19a1cef`, to: `${NAMESPACES}/.deleting-edd5c19a1cef` },
        { op: 'remove-tree', path: `${NAMESPACES}/.deleting-edd5c19a1cef` },
        { op: 'remove-account', marker: MARKER, account },
      ],
      result: { treeExisted: true, agentsRemoved: 2, accountsRemoved: ['openclaw-d74736b6a770'] },
    });
  });

  it('a Namespace without Agents needs no reload', () => {
    const steps = planDeleteNamespace(state({ agents: [], accounts: [] })).steps;
    assert.deepEqual(
      steps.map((step) => step.op),
      ['remove-tree', 'rename', 'remove-tree'],
    );
  });

  it('a retry after the tree went finishes the renamed-away removal and the accounts', () => {
    assert.deepEqual(planDeleteNamespace(state({ treeExisted: false, agents: [] })), {
      steps: [
        { op: 'remove-tree', path: `${NAMESPACES}/.deleting-edd5c19a1cef` },
        { op: 'remove-account', marker: MARKER, account },
      ],
      result: { treeExisted: false, agentsRemoved: 0, accountsRemoved: ['openclaw-d74736b6a770'] },
    });
  });
});
