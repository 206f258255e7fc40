// Judging the hostile-tenants section: a probe reveals only what is not the Agent's own, a reader's
// dump splits into its sections, heartbeat silences are measured, and every target fails on the
// outcome it guards (a slow or failed sibling call, a hung probe, a forged line shown, a deletion
// that never completes, a sighting, a visible sibling) while a clean result meets them all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cleanPressure } from '../pressure/pressure-fixture.js';
import { QUICK } from '../campaign/sizes.js';
import { countsOf, judge } from '../report/report.js';
import { LOCK_TRIAL_CALLS, tenantTargets } from './tenant-judge.js';
import { longestGap, readerSections, visibilityRows, type Probe, type TenantsResult, type Timed } from './tenant-results.js';

const call = (key: string, change: Partial<Timed> = {}): Timed => {
  const [who, operation] = key.split(' ') as [string, string];
  return { who, operation, ok: true, outcome: 'ok', ms: 900, ...change };
};

function clean(): TenantsResult {
  return {
    plan: { lockTrials: 2, trickleTrials: 1, treeDepth: 3000, treeFiles: 20_000, plantedNames: 200_000, floodEntryMiB: 32, floodSampleMs: 5000 },
    bounds: { operationMs: 15_000, readinessTimeoutMs: 15_000, readinessMarginMs: 10_000, inventoryMs: 10_000, heartbeatGapMs: 5000, deleteAttempts: 3 },
    lockCalm: LOCK_TRIAL_CALLS.map((key) => call(key)),
    lock: (['shared', 'exclusive'] as const).map((mode) => ({ mode, held: false, attacker: 'could not hold', calls: LOCK_TRIAL_CALLS.map((key) => call(key)), problems: [] })),
    trickle: [
      {
        activation: call('trickle activate-revision', { ok: false, code: 'not-ready', outcome: 'not-ready: …', ms: 16_000 }),
        inventory: call('host inventory', { ms: 1200 }),
        sibling: call('other activate-revision', { ms: 2500 }),
        problems: [],
      },
    ],
    forgedAudit: { forgedWritten: 12, forgedInJournal: 12, inventory: call('host inventory'), recentAudit: 10, forgedShown: 0, realRequests: ['t-1', 't-2', 't-3'], realShown: 3, problems: [] },
    hugeTrees: {
      depth: 3000,
      files: 20_000,
      planted: { ms: 4000, depth: 3000, files: 20_000 },
      attempts: [{ ...call('trees delete-namespace', { ms: 8000 }), heartbeats: 9, maxHeartbeatGapMs: 1100 }],
      deleted: true,
      targetsUnchanged: true,
      problems: [],
    },
    placeholders: {
      delivered: true,
      corpora: [{ name: 'reader-same gateway: proc', bytes: 4000 }],
      sightings: 0,
      found: [],
      visibility: [{ gateway: 'reader-same gateway', path: '/var/lib/openclaw-enterprise/accounts', category: 'accounts directory', revealed: false, seen: 'stat ENOENT' }],
      problems: [],
    },
    pressure: cleanPressure(),
    problems: [],
    durationMs: 60_000,
  };
}

const LOCK_TARGET = 'a lock-holding gateway delays no sibling operation and not its own stop (each succeeds within 15 s, or 3x the same call beside the calm gateway)';

const missed = (result: TenantsResult) => tenantTargets(result).filter((target) => !target.met);

describe('hostile-tenants targets', () => {
  it('a clean result meets every target, and the campaign judges them under the section', () => {
    assert.deepEqual(missed(clean()), []);
    const targets = judge({ hostileTenants: clean() }, QUICK, ['hostile-tenants']);
    assert.equal(targets.length, tenantTargets(clean()).length);
    assert.ok(targets.every((target) => target.section === 'hostile-tenants' && target.met));
    assert.deepEqual(countsOf({ hostileTenants: clean() })['hostileTenants'], { trials: 9, violations: 0, sightings: 0 });
  });

  it('a section that ran without results fails', () => {
    const targets = judge({}, QUICK, ['hostile-tenants']);
    assert.deepEqual(
      targets.map((target) => [target.name, target.met]),
      [['section completed', false]],
    );
  });

  it('a sibling call held up past its bound, or refused with lock-timeout, misses the lock target', () => {
    for (const change of [{ ms: 15_001 }, { ok: false, code: 'lock-timeout', outcome: 'lock-timeout: still held', ms: 30_100 }]) {
      const result = clean();
      result.lock[1]!.calls[0] = call('other ensure-namespace', change);
      assert.deepEqual(
        missed(result).map((target) => target.name),
        [LOCK_TARGET],
      );
    }
    // Past 15 s is judged against the same call beside the calm gateway: within 3x it is load, past it a delay.
    const slowHost = clean();
    slowHost.lockCalm = slowHost.lockCalm!.map((c) => (c.operation === 'stop-revision' ? { ...c, ms: 6000 } : c));
    slowHost.lock[0]!.calls = slowHost.lock[0]!.calls.map((c) => (c.operation === 'stop-revision' ? { ...c, ms: 17_900 } : c));
    assert.deepEqual(missed(slowHost), []);
    slowHost.lock[0]!.calls = slowHost.lock[0]!.calls.map((c) => (c.operation === 'stop-revision' ? { ...c, ms: 18_100 } : c));
    assert.deepEqual(
      missed(slowHost).map((target) => target.name),
      [LOCK_TARGET],
    );
    const calmFailed = clean();
    calmFailed.lockCalm![0] = call('other ensure-namespace', { ok: false, code: 'lock-timeout', ms: 60_000 });
    calmFailed.lock[0]!.calls[0] = call('other ensure-namespace', { ms: 16_000 });
    assert.deepEqual(
      missed(calmFailed).map((target) => target.name),
      [LOCK_TARGET],
      'a failed calm call scales no bound',
    );
    const stopped = clean();
    stopped.lock[0]!.calls = stopped.lock[0]!.calls.filter((c) => c.operation !== 'stop-revision');
    assert.equal(missed(stopped).length, 1, 'the holder never stopped');
    const noLock = clean();
    noLock.lock = [];
    assert.deepEqual(
      missed(noLock).map((target) => target.name),
      ['every attack ran', LOCK_TARGET],
    );
  });

  it('a trickling gateway: no answer, a late not-ready, a slow inventory or a failed sibling each miss their own target', () => {
    const late = clean();
    late.trickle[0]!.activation = { ...late.trickle[0]!.activation, ms: 25_001 };
    const silent = clean();
    silent.trickle[0]!.activation = call('trickle activate-revision', { ok: false, code: 'no-answer', outcome: 'no result line within 65 s', ms: 65_000 });
    const slowInventory = clean();
    slowInventory.trickle[0]!.inventory = call('host inventory', { ok: false, code: 'no-answer', ms: 35_000 });
    const sibling = clean();
    sibling.trickle[0]!.sibling = call('other activate-revision', { ok: false, code: 'not-ready', ms: 3000 });
    assert.match(missed(late)[0]!.name, /activation answers not-ready/);
    assert.match(missed(silent)[0]!.name, /activation answers not-ready/);
    assert.match(missed(slowInventory)[0]!.name, /^inventory answers within 10 s/);
    assert.match(missed(sibling)[0]!.name, /^a sibling activates/);
    for (const result of [late, silent, slowInventory, sibling]) assert.equal(missed(result).length, 1);
  });

  it('a forged line shown, or a real one missing, misses the audit target', () => {
    const forged = clean();
    forged.forgedAudit!.forgedShown = 10;
    forged.forgedAudit!.realShown = 0;
    const real = clean();
    real.forgedAudit!.realShown = 2;
    for (const result of [forged, real])
      assert.deepEqual(
        missed(result).map((target) => target.name),
        ['forged audit lines are never shown, the real ones always are'],
      );
    assert.match(tenantTargets(forged).find((t) => t.name.startsWith('forged'))!.detail, /recentAudit showed 10 forged and 0\/3 real of 10 lines/);
  });

  it('huge trees: undeleted, unanswered, silent for too long or never planted miss; a changed link target misses its own target', () => {
    const undeleted = clean();
    undeleted.hugeTrees!.deleted = false;
    const silent = clean();
    silent.hugeTrees!.attempts[0]!.maxHeartbeatGapMs = 5001;
    const unplanted = clean();
    delete unplanted.hugeTrees!.planted;
    for (const result of [undeleted, silent])
      assert.deepEqual(
        missed(result).map((target) => target.name),
        ['huge trees: delete-namespace completes within 3 attempts, heartbeats never 5 s apart'],
      );
    assert.equal(missed(unplanted).length, 2, 'nothing was proven about deletion nor links');
    const followed = clean();
    followed.hugeTrees!.targetsUnchanged = false;
    followed.hugeTrees!.problems = ['changed: /root root:root 700 …'];
    assert.deepEqual(
      missed(followed).map((target) => target.name),
      ['links planted in home/ and state/ are never followed by deletion'],
    );
  });

  it('a sighting, an undelivered placeholder, a revealed path or nothing probed miss the reader targets', () => {
    const seen = clean();
    seen.placeholders!.sightings = 2;
    seen.placeholders!.found = [{ corpus: 'reader-same account: unit directories', encoding: 'raw', count: 2 }];
    const undelivered = clean();
    undelivered.placeholders!.delivered = false;
    const revealed = clean();
    revealed.placeholders!.visibility[0]!.revealed = true;
    const unprobed = clean();
    unprobed.placeholders!.visibility = [{ ...unprobed.placeholders!.visibility[0]!, category: 'reported', revealed: true }];
    assert.match(missed(seen)[0]!.detail, /2 sightings in 1 dumps \(reader-same account: unit directories raw 2\)/);
    assert.equal(missed(undelivered).length, 1);
    assert.deepEqual(
      missed(revealed).map((target) => target.name),
      ['the shared root, the accounts directory and sibling Agents are invisible from inside a unit'],
    );
    assert.equal(missed(unprobed)[0]!.detail, 'nothing probed', 'a reported-only probe is not judged');
    assert.equal(countsOf({ hostileTenants: seen })['hostileTenants']!.sightings, 2);
    assert.equal(countsOf({ hostileTenants: revealed })['hostileTenants']!.violations, 1);
  });
});

describe('visibilityRows', () => {
  const probes: Probe[] = [
    { path: '/r', category: 'shared root', judgeStat: false, ownWay: ['namespaces'] },
    { path: '/r/accounts', category: 'accounts directory', judgeStat: true, ownWay: [] },
    { path: '/r/n/a', category: 'sibling Agents', judgeStat: false, ownWay: ['mine'] },
  ];
  const real = [
    { path: '/r', stat: '10 711 0', list: ['.compute-lock', 'accounts', 'namespaces'] },
    { path: '/r/accounts', stat: '11 700 0', list: ['x.json'] },
    { path: '/r/n/a', stat: '12 711 0', list: ['mine', 'theirs'] },
  ];

  it('the real inode (whatever owner a user namespace shows) or a listed name not on the way to its own files reveals; its own way does not', () => {
    const inside = [
      { path: '/r', stat: '10 711 0', list: ['namespaces'] },
      { path: '/r/accounts', stat: '11 700 65534', listError: 'EACCES' },
      { path: '/r/n/a', stat: '12 711 0', list: ['mine', 'theirs'] },
    ];
    const rows = visibilityRows('g', probes, inside, real);
    assert.deepEqual(
      rows.map((row) => [row.path, row.revealed, row.seen]),
      [
        ['/r', false, 'stat ok, list 1'],
        ['/r/accounts', true, 'stat shows the real inode'],
        ['/r/n/a', true, 'lists theirs'],
      ],
    );
  });

  it('another inode (an inaccessible or temporary file system) or ENOENT hides; a path the attacker never probed counts as revealed', () => {
    const inside = [
      { path: '/r', stat: '99 755 0', list: ['namespaces'] },
      { path: '/r/accounts', stat: '77 0 0', listError: 'EACCES' },
    ];
    const rows = visibilityRows('g', probes, inside, real);
    assert.deepEqual(
      rows.map((row) => row.revealed),
      [false, false, true],
    );
    assert.equal(rows[1]!.seen, 'stat ok, list EACCES');
    assert.equal(visibilityRows('g', probes.slice(1, 2), [{ path: '/r/accounts', statError: 'ENOENT', listError: 'ENOENT' }], real)[0]!.seen, 'stat ENOENT, list ENOENT');
  });
});

describe('readerSections and longestGap', () => {
  it('splits a dump at its == lines and drops what comes before the first', () => {
    assert.deepEqual(readerSections('noise\n== unit directories\n[Unit]\nX=1\n\n== proc\nA=b\n'), [
      { name: 'unit directories', text: '[Unit]\nX=1\n\n' },
      { name: 'proc', text: 'A=b\n\n' },
    ]);
    assert.deepEqual(readerSections(''), []);
  });

  it('measures the longest silence between heartbeats and after the last one; no heartbeat at all is one silence', () => {
    assert.equal(longestGap([1000, 2000, 6500, 7000], 0, 7200), 4500);
    assert.equal(longestGap([1000], 0, 9000), 8000);
    assert.equal(longestGap([], 500, 30_500), 30_000);
  });
});
