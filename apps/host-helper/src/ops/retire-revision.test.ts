// The retire-revision plan, exactly: the marker before the snapshot, and a current revision's gateway first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentLayout, EXAMPLE_MARKERS, revisionLayout } from '@occ-ssh/markers';
import { planRetireRevision } from './retire-revision.js';

const ROOT = '/var/lib/openclaw-enterprise';
const DIR = `${ROOT}/namespaces/edd5c19a1cef/agents/fcfbd503951a`;
const REV = `${DIR}/revisions/ad30d4665b02`;
const layout = agentLayout(ROOT, '/etc/systemd/system', 'ns-01HZX3', 'agent-7f3a');
const { agent } = EXAMPLE_MARKERS;
const marker = EXAMPLE_MARKERS.revision;
const state = (current: string | null, staged = true) => ({
  layout,
  agent,
  paths: revisionLayout(layout.dir, 'rev-0001'),
  marker: staged ? marker : null,
  unit: null,
  current,
  served: null,
  snapshotDir: staged,
});

describe('planRetireRevision', () => {
  it("removes a staged revision's marker, then its directory", () => {
    assert.deepEqual(planRetireRevision(state('revisions/d87b8f76768c')), {
      steps: [
        { op: 'remove-file', path: `${REV}/revision.json` },
        { op: 'remove-tree', path: REV },
      ],
      result: { removed: true, wasCurrent: false },
    });
  });

  it('stops the gateway and removes served.json and current first when the revision is current', () => {
    assert.deepEqual(planRetireRevision(state('revisions/ad30d4665b02')), {
      steps: [
        { op: 'stop-and-disable', unit: 'openclaw-enterprise-gateway-fcfbd503951a.service' },
        { op: 'remove-file', path: `${DIR}/launch.env` },
        { op: 'remove-file', path: `${DIR}/served.json` },
        { op: 'remove-file', path: `${DIR}/current` },
        { op: 'remove-file', path: `${REV}/revision.json` },
        { op: 'remove-tree', path: REV },
      ],
      result: { removed: true, wasCurrent: true },
    });
  });

  it('reports nothing removed when the revision is not on the host', () => {
    assert.deepEqual(planRetireRevision(state(null, false)).result, { removed: false, wasCurrent: false });
  });

  it('changes nothing for an Agent this host does not have', () => {
    assert.deepEqual(planRetireRevision({ ...state(null, false), agent: null }), { steps: [], result: { removed: false, wasCurrent: false } });
  });
});
