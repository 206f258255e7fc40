// The delete-namespace plan, exactly: units first, the tree renamed into the removal area, the accounts, then the removal past the lock.
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

const NS = 'ns-01HZX3';
const finish = { op: 'finish-removals', namespaceId: NS };

const state = (overrides: Partial<DeleteState>): DeleteState => ({
  namespaceId: NS,
  dir: `${NAMESPACES}/edd5c19a1cef`,
  deleting: DELETING,
  treeExisted: true,
  ports: null,
  agents: [
    { unitName: UNIT, unitFile: `/etc/systemd/system/${UNIT}`, setupUnitName: SETUP_UNIT },
    { unitName: OTHER_UNIT, unitFile: `/etc/systemd/system/${OTHER_UNIT}`, setupUnitName: OTHER_SETUP_UNIT },
  ],
  twinExists: false,
  accounts: [{ path: MARKER, marker: account }],
  ...overrides,
});

describe('planDeleteNamespace', () => {
  it('stops every workspace setup and gateway, removes the units with one reload, stages the tree for removal, removes the accounts, then finishes the removal past the lock', () => {
    assert.deepEqual(planDeleteNamespace(state({})), {
      steps: [
        { op: 'stop-native-setup', unit: SETUP_UNIT },
        { op: 'stop-native-setup', unit: OTHER_SETUP_UNIT },
        { op: 'stop-and-disable', unit: UNIT },
        { op: 'stop-and-disable', unit: OTHER_UNIT },
        { op: 'remove-file', path: `/etc/systemd/system/${UNIT}` },
        { op: 'remove-file', path: `/etc/systemd/system/${OTHER_UNIT}` },
        { op: 'daemon-reload' },
        { op: 'stage-removal', path: `${NAMESPACES}/edd5c19a1cef`, namespaceId: NS },
        { op: 'remove-account', marker: MARKER, account },
        finish,
      ],
      result: { treeExisted: true, agentsRemoved: 2, accountsRemoved: ['openclaw-d74736b6a770'] },
    });
  });

  it('with the port index in hand: the index without this Namespace is recorded after its tree is staged', () => {
    const ports = { edd5c19a1cef: { fcfbd503951a: 18800 }, '000000000001': { '000000000002': 18801 } };
    const steps = planDeleteNamespace(state({ ports, agents: [], accounts: [] })).steps;
    assert.deepEqual(steps.slice(1), [{ op: 'record-ports', ports: { '000000000001': { '000000000002': 18801 } } }, finish]);
  });

  it('a Namespace without Agents needs no reload', () => {
    const steps = planDeleteNamespace(state({ agents: [], accounts: [] })).steps;
    assert.deepEqual(
      steps.map((step) => step.op),
      ['stage-removal', 'finish-removals'],
    );
  });

  it('a tree an earlier version left renamed away is staged too, before the live one', () => {
    const steps = planDeleteNamespace(state({ agents: [], accounts: [], twinExists: true })).steps;
    assert.deepEqual(steps, [{ op: 'stage-removal', path: DELETING, namespaceId: NS }, { op: 'stage-removal', path: `${NAMESPACES}/edd5c19a1cef`, namespaceId: NS }, finish]);
  });

  it('a retry after the tree was staged removes the accounts left and finishes the removal', () => {
    assert.deepEqual(planDeleteNamespace(state({ treeExisted: false, agents: [] })), {
      steps: [{ op: 'remove-account', marker: MARKER, account }, finish],
      result: { treeExisted: false, agentsRemoved: 0, accountsRemoved: ['openclaw-d74736b6a770'] },
    });
  });
});
