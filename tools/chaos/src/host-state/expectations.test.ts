// Convergence expectations on fabricated listings: the intended state of each mutating
// operation is recognised, and each way of falling short is named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentHash, markerText, nsHash, sha256Hex } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { convergenceProblems, portOf, type MutatingArgs } from './expectations.js';
import { entryAt, fakeListing, healthyHost, type FakeAgent } from './fake-host.js';

const owner: AgentOwner = { namespace: { id: 'ns-a', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-agent-1' } };
const target = (id: string, number: number) => ({ owner, revision: { id, number } });
const doc = (n: number) => `{"a":${n}}\n`;
const agent = (change: Partial<FakeAgent> = {}): FakeAgent => ({
  namespaceId: 'ns-a',
  agentId: 'agent-1',
  uid: 999,
  port: 18800,
  revisions: [{ id: 'rev-1', number: 1, document: doc(1) }],
  ...change,
});
const prepare = (id: string, number: number): MutatingArgs => ({
  operation: 'prepare-revision',
  args: { owner, revision: { id, number }, harness: 'openclaw/embedded', configuration: { document: doc(number), hash: sha256Hex(doc(number)), auth: 'password' } },
});
const activate = (id: string, number: number): MutatingArgs => ({
  operation: 'activate-revision',
  args: { ...target(id, number), configurationHash: sha256Hex(doc(number)), launchEnvironment: {}, readinessTimeoutMs: 30_000 },
});
const serving = (id = 'rev-1', number = 1) => agent({ revisions: [{ id, number, document: doc(number) }], current: id, served: true, unit: { activeState: 'active', unitFileState: 'enabled' } });
/** Two snapshots, `current` of them serving. */
const servingOfTwo = (current: 'rev-1' | 'rev-2') =>
  agent({
    revisions: [
      { id: 'rev-1', number: 1, document: doc(1) },
      { id: 'rev-2', number: 2, document: doc(2) },
    ],
    current,
    served: true,
    unit: { activeState: 'active', unitFileState: 'enabled' },
  });

describe('convergenceProblems', () => {
  it('ensure-namespace: the marker and agents/ exist', () => {
    const op: MutatingArgs = { operation: 'ensure-namespace', args: { namespace: { id: 'ns-a', name: 'stable' } } };
    assert.deepEqual(convergenceProblems(op, fakeListing([]), fakeListing([agent()])), []);
    assert.deepEqual(convergenceProblems(op, fakeListing([]), fakeListing([])), ['Namespace marker is missing', 'agents/ directory is missing']);
  });

  it('prepare-revision: account, Agent, snapshot; current and served untouched', () => {
    assert.deepEqual(convergenceProblems(prepare('rev-1', 1), fakeListing([]), fakeListing([agent()])), []);
    assert.deepEqual(convergenceProblems(prepare('rev-1', 1), fakeListing([]), fakeListing([])), ['Agent marker is missing']);
    const wrongBytes = fakeListing([agent({ revisions: [{ id: 'rev-1', number: 1, document: doc(7) }] })]);
    assert.ok(convergenceProblems(prepare('rev-1', 1), fakeListing([]), wrongBytes).includes('revision marker records another revision'));
    // Preparing revision 2 while 1 serves: 1 must keep serving.
    const before = fakeListing([serving()]);
    const ok = fakeListing([serving()]);
    ok.entries.push(...fakeListing([agent({ revisions: [{ id: 'rev-2', number: 2, document: doc(2) }] })]).entries.filter((e) => e.path.includes('/revisions/')));
    assert.deepEqual(convergenceProblems(prepare('rev-2', 2), before, ok), []);
    const cutOver = fakeListing([servingOfTwo('rev-2')]);
    const problems = convergenceProblems(prepare('rev-2', 2), before, cutOver);
    assert.ok(problems.includes('prepare changed current') && problems.includes('prepare changed served.json'), problems.join('; '));
  });

  it('activate-revision: current, served.json, an active enabled unit and /readyz', () => {
    assert.deepEqual(convergenceProblems(activate('rev-1', 1), fakeListing([agent()]), fakeListing([serving()])), []);
    const notServed = fakeListing([agent({ current: 'rev-1', unit: { activeState: 'active', unitFileState: 'enabled' } })]);
    assert.deepEqual(convergenceProblems(activate('rev-1', 1), fakeListing([agent()]), notServed), ['served.json does not name rev-1', '/readyz on port 18800 did not answer 200']);
    const down = fakeListing([serving()]);
    down.units[0]!.activeState = 'failed';
    down.ready = {};
    assert.deepEqual(convergenceProblems(activate('rev-1', 1), fakeListing([agent()]), down), ['unit is failed, not active', '/readyz on port 18800 did not answer 200']);
  });

  it('stop-revision: no current, no served.json, unit stopped and disabled, snapshot kept', () => {
    const stopped = fakeListing([agent({ unit: { activeState: 'inactive', unitFileState: 'disabled' } })]);
    assert.deepEqual(convergenceProblems({ operation: 'stop-revision', args: target('rev-1', 1) }, fakeListing([serving()]), stopped), []);
    const still = fakeListing([serving()]);
    assert.deepEqual(convergenceProblems({ operation: 'stop-revision', args: target('rev-1', 1) }, fakeListing([serving()]), still), [
      'current is still present',
      'served.json is still present',
      'unit is still active/enabled',
    ]);
    const gone = fakeListing([agent({ revisions: [], unit: { activeState: 'inactive', unitFileState: 'disabled' } })]);
    assert.deepEqual(convergenceProblems({ operation: 'stop-revision', args: target('rev-1', 1) }, fakeListing([serving()]), gone), ['stop removed the snapshot']);
  });

  it('stop-revision of a revision that is not current changes nothing', () => {
    const twoRevisions = servingOfTwo('rev-2');
    assert.deepEqual(convergenceProblems({ operation: 'stop-revision', args: target('rev-1', 1) }, fakeListing([twoRevisions]), fakeListing([twoRevisions])), []);
  });

  it('retire-revision: only that snapshot goes; when current, the gateway stops first', () => {
    const before = fakeListing([servingOfTwo('rev-1')]);
    const after = fakeListing([agent({ revisions: [{ id: 'rev-2', number: 2, document: doc(2) }], unit: { activeState: 'inactive', unitFileState: 'disabled' } })]);
    assert.deepEqual(convergenceProblems({ operation: 'retire-revision', args: target('rev-1', 1) }, before, after), []);
    const tooMuch = fakeListing([agent({ revisions: [], unit: { activeState: 'inactive', unitFileState: 'disabled' } })]);
    assert.ok(convergenceProblems({ operation: 'retire-revision', args: target('rev-1', 1) }, before, tooMuch).some((p) => p.startsWith('another revision')));
    assert.ok(convergenceProblems({ operation: 'retire-revision', args: target('rev-1', 1) }, before, before).includes('the retired revision directory is still present'));
  });

  it('delete-namespace: tree, accounts and units gone', () => {
    const op: MutatingArgs = { operation: 'delete-namespace', args: { namespace: { id: 'ns-a', name: 'stable' } } };
    assert.deepEqual(convergenceProblems(op, healthyHost(), fakeListing([])), []);
    const half = fakeListing([]);
    half.entries.push({ path: `namespaces/.deleting-${nsHash('ns-a')}`, type: 'dir', uid: 0, gid: 0, mode: 0o711, size: 0 });
    half.users.push(healthyHost().users[0]!);
    const problems = convergenceProblems(op, healthyHost(), half);
    assert.ok(
      problems.some((p) => p.startsWith('an unfinished removal')),
      problems.join('; '),
    );
    assert.ok(
      problems.some((p) => p.endsWith('still exists')),
      problems.join('; '),
    );
  });

  it("a removal left in the removal area is the deletion's unfinished work, another Agent's is not", () => {
    const op: MutatingArgs = { operation: 'delete-agent', args: { owner } };
    const removal = (agentId: string) => {
      const listing = fakeListing([]);
      const marker = markerText({ kind: 'removal', version: 1, driver: 'compute-ssh', namespaceId: 'ns-a', agentId, from: '/x', stagedAt: '2026-01-01T00:00:00.000Z' });
      listing.entries.push(
        { path: '.removing', type: 'dir', uid: 0, gid: 0, mode: 0o700, size: 0 },
        { path: '.removing/0123456789abcdef', type: 'dir', uid: 0, gid: 0, mode: 0o711, size: 0 },
        { path: '.removing/0123456789abcdef.json', type: 'file', uid: 0, gid: 0, mode: 0o600, size: marker.length, text: marker },
      );
      return listing;
    };
    assert.ok(convergenceProblems(op, fakeListing([]), removal('agent-1')).includes('an unfinished removal is left: .removing/0123456789abcdef'));
    assert.deepEqual(convergenceProblems(op, fakeListing([]), removal('agent-2')), []);
    const ns: MutatingArgs = { operation: 'delete-namespace', args: { namespace: { id: 'ns-a', name: 'stable' } } };
    assert.ok(convergenceProblems(ns, fakeListing([]), removal('agent-2')).includes('an unfinished removal is left: .removing/0123456789abcdef.json'));
  });

  it('delete-agent: directory, twin, unit, account and port gone; the sibling whole', () => {
    const op: MutatingArgs = { operation: 'delete-agent', args: { owner } };
    const sibling = agent({ agentId: 'agent-2', uid: 998, port: 18801, unit: { activeState: 'active', unitFileState: 'enabled' } });
    const before = fakeListing([serving(), sibling]);
    assert.deepEqual(convergenceProblems(op, before, fakeListing([sibling])), []);
    // Cut after the rename: the twin and the account are still there.
    const half = fakeListing([sibling]);
    half.entries.push({ path: `namespaces/${nsHash('ns-a')}/agents/.deleting-${agentHash('agent-1')}`, type: 'dir', uid: 0, gid: 0, mode: 0o711, size: 0 });
    half.users.push(before.users.find((user) => user.uid === 999)!);
    const problems = convergenceProblems(op, before, half);
    assert.ok(problems.some((p) => p.startsWith('an unfinished removal')) && problems.some((p) => p.endsWith('still exists')), problems.join('; '));
    assert.ok(convergenceProblems(op, before, before).includes('the Agent directory is still present'));
    assert.ok(convergenceProblems(op, before, before).includes('the unit file is still present'));
    const siblingStopped = fakeListing([{ ...sibling, unit: { activeState: 'inactive', unitFileState: 'disabled' } }]);
    assert.deepEqual(convergenceProblems(op, before, siblingStopped), ["sibling agent-2's unit changed state"]);
    assert.deepEqual(convergenceProblems(op, before, fakeListing([])), [
      'sibling agent-2 lost or changed its Agent marker',
      'sibling agent-2 lost home/ or state/',
      "sibling agent-2's unit changed state",
      "sibling agent-2's account is gone",
    ]);
  });

  it('setup-workspace: the marker records exactly the setup, the documents are the submitted text, no unit, scratch or temp is left', () => {
    const documents = { 'SOUL.md': '# SOUL.md\n\nSteady.\n', 'USER.md': '# USER.md\n\n- Lists.\n' };
    const op: MutatingArgs = {
      operation: 'setup-workspace',
      args: {
        owner,
        revision: { id: 'rev-1', number: 1 },
        setup: { id: 'setup-1', completed: false, documents: Object.entries(documents).map(([name, content]) => ({ name: name as 'SOUL.md', content })) },
      },
    };
    const before = fakeListing([agent()]);
    const done = (change: Partial<FakeAgent['workspace']> = {}) => fakeListing([agent({ workspace: { setupId: 'setup-1', documents, ...change } })]);
    assert.deepEqual(convergenceProblems(op, before, done()), []);
    assert.deepEqual(convergenceProblems(op, before, before), ['the workspace setup marker is missing', 'SOUL.md is not the submitted text', 'USER.md is not the submitted text']);
    assert.deepEqual(convergenceProblems(op, before, done({ setupId: 'setup-0' })), ['the workspace setup marker records setup-0, not setup-1']);
    // The marker records a stock SOUL.md while the workspace holds the submitted one: a marker of another setup's documents.
    const otherDigests = done();
    const marker = entryAt(otherDigests, '/workspace-setup.json');
    marker.text = marker.text!.replace(sha256Hex(documents['SOUL.md']), sha256Hex('# SOUL.md\n\nStock.\n'));
    assert.deepEqual(convergenceProblems(op, before, otherDigests), ['the workspace setup marker records other document digests']);
    const garbled = done();
    entryAt(garbled, '/workspace-setup.json').text = '{"kind":"workspace-setup"';
    assert.deepEqual(convergenceProblems(op, before, garbled), ['the workspace setup marker does not parse']);
    const edited = done();
    entryAt(edited, '/state/workspace/USER.md').sha256 = sha256Hex('# USER.md\n\nstock\n');
    assert.deepEqual(convergenceProblems(op, before, edited), ['USER.md is not the submitted text']);
    for (const activeState of ['active', 'failed']) {
      const running = done();
      running.setupUnits.push({ name: 'openclaw-enterprise-setup-0123456789ab.service', activeState });
      assert.deepEqual(convergenceProblems(op, before, running), [`native-setup unit openclaw-enterprise-setup-0123456789ab.service is ${activeState}`]);
    }
    const stopped = done();
    stopped.setupUnits.push({ name: 'openclaw-enterprise-setup-0123456789ab.service', activeState: 'inactive' });
    assert.deepEqual(convergenceProblems(op, before, stopped), []);
    const leftovers = done();
    const dir = entryAt(leftovers, '/state/workspace').path.replace(/\/state\/workspace$/, '');
    for (const rest of ['state/.occ-workspace-setup', 'state/workspace/.SOUL.md.occ-0a1b2c3d4e5f', '.workspace-setup.json.tmp-1-2'])
      leftovers.entries.push({ path: `${dir}/${rest}`, type: rest.endsWith('setup') ? 'dir' : 'file', uid: 999, gid: 999, mode: 0o600, size: 1 });
    assert.deepEqual(convergenceProblems(op, before, leftovers), [
      'the scratch configuration is left: state/.occ-workspace-setup',
      'a document temp is left: state/workspace/.SOUL.md.occ-0a1b2c3d4e5f',
      'a marker temp is left: .workspace-setup.json.tmp-1-2',
    ]);
  });

  it('portOf reads the Agent marker', () => {
    assert.equal(portOf(healthyHost(), owner), 18800);
    assert.equal(portOf(fakeListing([]), owner), undefined);
    assert.equal(agentHash('agent-1').length, 12);
  });
});
