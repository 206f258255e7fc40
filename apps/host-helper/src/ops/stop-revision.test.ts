// The stop-revision plan, exactly: this revision's gateway stops; another revision's keeps running.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentLayout, EXAMPLE_MARKERS, revisionLayout } from '@occ-ssh/markers';
import { planStopRevision } from './stop-revision.js';

const ROOT = '/var/lib/openclaw-enterprise';
const DIR = `${ROOT}/namespaces/edd5c19a1cef/agents/fcfbd503951a`;
const UNIT = 'openclaw-enterprise-gateway-fcfbd503951a.service';
const layout = agentLayout(ROOT, '/etc/systemd/system', 'ns-01HZX3', 'agent-7f3a');
const { agent } = EXAMPLE_MARKERS;
const state = (current: string | null, unit: string | null = '[Unit]\n') => ({
  layout,
  agent,
  paths: revisionLayout(layout.dir, 'rev-0001'),
  marker: null,
  unit,
  current,
  served: null,
  snapshotDir: true,
});

describe('planStopRevision', () => {
  it('stops and disables the unit, then removes served.json and current', () => {
    assert.deepEqual(planStopRevision(state('revisions/ad30d4665b02')), {
      steps: [
        { op: 'stop-and-disable', unit: UNIT },
        { op: 'remove-file', path: `${DIR}/launch.env` },
        { op: 'remove-file', path: `${DIR}/served.json` },
        { op: 'remove-file', path: `${DIR}/current` },
      ],
      result: { unitFound: true, currentRemoved: true },
    });
  });

  it('stops a gateway whose revision cannot be told (no current), reporting no pointer removed', () => {
    const plan = planStopRevision(state(null, null));
    assert.equal(plan.steps[0]?.op, 'stop-and-disable');
    assert.deepEqual(plan.result, { unitFound: false, currentRemoved: false });
  });

  it('leaves a gateway running another revision alone', () => {
    assert.deepEqual(planStopRevision(state('revisions/d87b8f76768c')), { steps: [], result: { unitFound: true, currentRemoved: false } });
  });

  it('changes nothing for an Agent this host does not have', () => {
    assert.deepEqual(planStopRevision({ ...state(null, null), agent: null }), { steps: [], result: { unitFound: false, currentRemoved: false } });
  });
});
