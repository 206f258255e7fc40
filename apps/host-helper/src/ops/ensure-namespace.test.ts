// The ensure-namespace plan, exactly, for a host without the Namespace and for one that has it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namespaceLayout } from '@occ-ssh/markers';
import { exampleArgs } from '@occ-ssh/protocol';
import { planEnsureNamespace } from './ensure-namespace.js';

const args = exampleArgs('ensure-namespace');
const ROOT = '/var/lib/openclaw-enterprise';
const NS = `${ROOT}/namespaces/edd5c19a1cef`;
const state = (exists: boolean) => ({ layout: namespaceLayout(ROOT, args.namespace.id), namespaces: `${ROOT}/namespaces`, exists, ports: null });
const ROOT_DIR = { uid: 0, gid: 0, mode: 0o711 };

describe('planEnsureNamespace', () => {
  it('builds a new Namespace whole in a temp directory, marker first, after sweeping its old temps', () => {
    assert.deepEqual(planEnsureNamespace(state(false), args), {
      steps: [
        { op: 'sweep-temps', dir: `${ROOT}/namespaces`, prefix: '.edd5c19a1cef' },
        {
          op: 'create-dir-atomic',
          path: NS,
          owner: ROOT_DIR,
          inside: [
            { op: 'write-marker', path: `${NS}/namespace.json`, marker: { kind: 'namespace', version: 1, driver: 'compute-ssh', namespaceId: 'ns-01HZX3', namespaceName: 'team-a' } },
            { op: 'ensure-dir', path: `${NS}/agents`, owner: ROOT_DIR },
          ],
        },
      ],
      result: { created: true },
    });
  });

  it('with the port index in hand, records the new Namespace in it once its directory exists', () => {
    const ports = { '000000000001': { '000000000002': 18800 } };
    const { steps } = planEnsureNamespace({ ...state(false), ports }, args);
    assert.deepEqual(steps.slice(2), [{ op: 'record-ports', ports: { ...ports, edd5c19a1cef: {} } }]);
  });

  it('for an existing Namespace sweeps its temps and makes sure of its agents directory only', () => {
    assert.deepEqual(planEnsureNamespace(state(true), args), {
      steps: [
        { op: 'sweep-temps', dir: NS },
        { op: 'ensure-dir', path: `${NS}/agents`, owner: ROOT_DIR },
      ],
      result: { created: false },
    });
  });
});
