// The invariant checker on fabricated tree listings: a healthy host passes, and each kind of
// damage an interruption could leave is reported under its rule, or as pending where it is a
// documented intermediate state.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accountName, agentHash, nsHash, revHash } from '@occ-ssh/markers';
import { entryAt, fakeListing, healthyHost } from './fake-host.js';
import { checkInvariants, type Rule } from './invariants.js';
import type { Listing } from '../host/listing.js';

const SETTINGS = { user: 'openclaw', portRange: { start: 18800, end: 18899 } };
const rules = (listing: Listing): Rule[] => [...new Set(checkInvariants(listing, SETTINGS).violations.map((v) => v.rule))].sort();
const agentDir = (agentId = 'agent-1') => `namespaces/${nsHash('ns-a')}/agents/${agentHash(agentId)}`;

describe('checkInvariants', () => {
  it('a healthy host has no violations and nothing pending', () => {
    assert.deepEqual(checkInvariants(healthyHost(), SETTINGS), { violations: [], pending: [] });
  });

  it('an empty root is healthy', () => {
    assert.deepEqual(checkInvariants(fakeListing([]), SETTINGS), { violations: [], pending: [] });
  });

  it('a marker that does not parse (and nothing else is blamed on it)', () => {
    const host = healthyHost();
    entryAt(host, `${agentDir()}/agent.json`).text = '{"kind": "agent", ';
    assert.deepEqual(rules(host), ['marker']);
  });

  it('a Namespace directory holding Agents without its marker', () => {
    const host = healthyHost();
    host.entries = host.entries.filter((e) => !e.path.endsWith('/namespace.json'));
    assert.deepEqual(rules(host), ['marker']);
  });

  it('a marker stored under the wrong directory name', () => {
    const host = healthyHost();
    const marker = entryAt(host, `${agentDir()}/agent.json`);
    marker.text = marker.text!.replace('"agentId": "agent-1"', '"agentId": "agent-2"');
    assert.ok(rules(host).includes('marker-owner'));
  });

  it('a revision marker whose ID does not hash to its directory', () => {
    const host = healthyHost();
    const marker = entryAt(host, `${agentDir()}/revisions/${revHash('rev-1')}/revision.json`);
    marker.text = marker.text!.replace('"revisionId": "rev-1"', '"revisionId": "rev-7"');
    assert.deepEqual(rules(host), ['marker-owner']);
  });

  it('an account marker under another file name', () => {
    const host = healthyHost();
    const name = accountName('openclaw', 'ns-a', 'agent-1');
    const marker = entryAt(host, `accounts/${name}.json`);
    marker.path = 'accounts/openclaw-000000000000.json';
    assert.ok(rules(host).includes('marker-owner'));
  });

  it('a marker that is not root 0600', () => {
    const host = healthyHost();
    entryAt(host, `${agentDir()}/agent.json`).mode = 0o644;
    assert.deepEqual(rules(host), ['marker-mode']);
  });

  it('snapshot bytes that do not hash to the recorded configuration', () => {
    const host = healthyHost();
    entryAt(host, `${revHash('rev-1')}/openclaw.json`).sha256 = 'f'.repeat(64);
    assert.deepEqual(rules(host), ['snapshot']);
  });

  it('a revision marker without its snapshot', () => {
    const host = healthyHost();
    host.entries = host.entries.filter((e) => !e.path.endsWith(`${revHash('rev-1')}/openclaw.json`));
    assert.deepEqual(rules(host), ['snapshot']);
  });

  it('a snapshot without its marker is pending, not a violation', () => {
    const host = healthyHost();
    host.entries = host.entries.filter((e) => !e.path.endsWith(`${revHash('rev-1')}/revision.json`));
    const verdict = checkInvariants(host, SETTINGS);
    assert.deepEqual(verdict.violations, []);
    assert.equal(verdict.pending.length, 1);
    assert.match(verdict.pending[0]!, /without its marker/);
  });

  it('current pointing at a revision without a marker, or anywhere else', () => {
    const host = healthyHost();
    host.entries = host.entries.filter((e) => !e.path.endsWith(`${revHash('rev-2')}/revision.json`));
    assert.ok(rules(host).includes('current'));
    const elsewhere = healthyHost();
    entryAt(elsewhere, `${agentDir()}/current`).target = '/etc';
    assert.ok(rules(elsewhere).includes('current'));
  });

  it('served.json naming another revision than current', () => {
    const host = healthyHost();
    entryAt(host, `${agentDir()}/current`).target = `revisions/${revHash('rev-1')}`;
    assert.deepEqual(rules(host), ['served']);
  });

  it('served.json naming a running gateway that is not ready', () => {
    const host = healthyHost();
    host.servedReady = { '18800': false };
    assert.deepEqual(rules(host), ['served']);
    host.servedReady = { '18800': true };
    assert.deepEqual(rules(host), []);
  });

  it('served.json naming a gateway stopped while checked is pending, not a violation', () => {
    const host = healthyHost();
    host.servedReady = {};
    host.servedStopped = [18800];
    assert.deepEqual(rules(host), []);
    assert.ok(checkInvariants(host, SETTINGS).pending.some((item) => item.endsWith('served.json: its gateway on 18800 was stopped while checked (a stop the cut helper began)')));
  });

  it('served.json without current', () => {
    const host = healthyHost();
    host.entries = host.entries.filter((e) => !e.path.endsWith(`${agentDir()}/current`));
    assert.deepEqual(rules(host), ['served']);
  });

  it('temporary files under the root or the unit directory', () => {
    const host = healthyHost();
    host.entries.push({ path: `${agentDir()}/.served.json.tmp-0a1b2c3d4e5f`, type: 'file', uid: 0, gid: 0, mode: 0o600, size: 3 });
    assert.deepEqual(rules(host), ['temp-file']);
    const units = healthyHost();
    units.unitTemps.push('/etc/systemd/system/.openclaw-enterprise-gateway-x.service.tmp-0a1b2c3d4e5f');
    assert.deepEqual(rules(units), ['temp-file']);
  });

  it('a held lock, or a helper still running', () => {
    const host = healthyHost();
    host.lock.free = false;
    host.quiet = { waitedMs: 200_000, timedOut: true, helpers: ['123 /usr/local/bin/node - eyJ'] };
    assert.deepEqual(rules(host), ['helper-running', 'lock']);
  });

  it('an account (user or group) without a marker', () => {
    const host = healthyHost();
    host.users.push({ name: 'openclaw-0123456789ab', uid: 990, gid: 990 });
    host.groups.push({ name: 'openclaw-0123456789ab', gid: 990 });
    assert.deepEqual(rules(host), ['orphan-account']);
    const other = healthyHost();
    other.users.push({ name: 'postgres', uid: 100, gid: 100 });
    assert.deepEqual(rules(other), [], 'accounts outside the runtime.user prefix are not ours');
  });

  it('an Agent whose live account has another UID', () => {
    const host = healthyHost();
    host.users[0]!.uid = 4343;
    assert.deepEqual(rules(host), ['account-binding']);
  });

  it('an Agent directory with content but no marker; an empty one is pending', () => {
    const host = healthyHost();
    host.entries = host.entries.filter((e) => !e.path.endsWith(`${agentDir('agent-2')}/agent.json`));
    assert.ok(rules(host).includes('agent-dir'));
    const empty = fakeListing([{ namespaceId: 'ns-a', agentId: 'agent-1', uid: 999, port: 18800, revisions: [] }]);
    empty.entries.push({ path: `namespaces/${nsHash('ns-a')}/agents/${agentHash('agent-3')}`, type: 'dir', uid: 0, gid: 0, mode: 0o711, size: 0 });
    empty.entries.push({ path: `namespaces/${nsHash('ns-b')}`, type: 'dir', uid: 0, gid: 0, mode: 0o711, size: 0 });
    const verdict = checkInvariants(empty, SETTINGS);
    assert.deepEqual(verdict.violations, []);
    assert.equal(verdict.pending.length, 2, 'the Namespace without a marker yet, and the empty Agent directory');
  });

  it('state/ that is a link, or home/ with the wrong owner', () => {
    const host = healthyHost();
    Object.assign(entryAt(host, `${agentDir()}/state`), { type: 'link', target: '/etc' });
    assert.deepEqual(rules(host), ['private-dir']);
    const owner = healthyHost();
    entryAt(owner, `${agentDir()}/home`).uid = 0;
    assert.deepEqual(rules(owner), ['private-dir']);
  });

  it('a unit file without its ownership header, or without a live Agent', () => {
    const host = healthyHost();
    host.units[0]!.head = '[Service]';
    assert.deepEqual(rules(host), ['unit']);
    const orphan = healthyHost();
    orphan.units.push({ name: 'openclaw-enterprise-gateway-0123456789ab.service', type: 'file', uid: 0, head: '', activeState: 'inactive', unitFileState: 'disabled' });
    assert.deepEqual(rules(orphan), ['unit']);
  });

  it('two Agents recording the same port or the same UID', () => {
    const host = fakeListing([
      { namespaceId: 'ns-a', agentId: 'agent-1', uid: 999, port: 18800, revisions: [] },
      { namespaceId: 'ns-b', agentId: 'agent-2', uid: 998, port: 18800, revisions: [] },
    ]);
    assert.deepEqual(rules(host), ['port']);
    const uids = fakeListing([
      { namespaceId: 'ns-a', agentId: 'agent-1', uid: 999, port: 18800, revisions: [] },
      { namespaceId: 'ns-b', agentId: 'agent-2', uid: 999, port: 18801, revisions: [] },
    ]);
    assert.ok(rules(uids).includes('uid'));
  });

  it('a port outside the configured range', () => {
    const host = fakeListing([{ namespaceId: 'ns-a', agentId: 'agent-1', uid: 999, port: 19000, revisions: [] }]);
    assert.deepEqual(rules(host), ['port']);
  });

  it('an unfinished deletion and an account still being created are pending', () => {
    const host = healthyHost();
    host.entries.push({ path: `namespaces/.deleting-${nsHash('ns-z')}`, type: 'dir', uid: 0, gid: 0, mode: 0o711, size: 0 });
    const name = accountName('openclaw', 'ns-z', 'agent-z');
    host.entries.push({
      path: `accounts/${name}.json`,
      type: 'file',
      uid: 0,
      gid: 0,
      mode: 0o600,
      size: 10,
      text: JSON.stringify({ kind: 'account', version: 1, driver: 'compute-ssh', namespaceId: 'ns-z', agentId: 'agent-z', servicePrincipalId: 'sp-z', account: name, state: 'creating' }),
    });
    const verdict = checkInvariants(host, SETTINGS);
    assert.deepEqual(verdict.violations, []);
    assert.equal(verdict.pending.length, 2);
  });
});
