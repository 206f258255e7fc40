// Real-host proof that activation waits for readiness without the host lock: other Agents' changes
// go on meanwhile, and a later operation on the same Agent wins over the waiting activation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentLayout } from '@occ-ssh/markers';
import type { AgentOwner, OperationArgs } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, call, exists, gatewayStarts, layoutOf, ok, owner, prepareArgs, type CallOutcome } from '@occ-ssh/test-support';

/** Long enough that lock holds (unit write, reload, restart) are small beside it, short enough for CI. */
/**
 * Longer than the other activations' lock holds together (8 of about 1 to 1.7 s each on a loaded
 * 2-core machine), so a gateway can start late only if an activation held the lock through its wait.
 */
const START_DELAY_MS = 20_000;
const AGENTS = 8;

describe('readiness wait outside the host lock on a real host', () => {
  let host: TestHost;
  const slow = (who: AgentOwner, number: number, delay = 4000) => prepareArgs(who, number, { fixtureGateway: { readyAfterMs: delay } });
  const servedRevision = async (layout: AgentLayout) => ((await exists(host, layout.served)) ? (JSON.parse(await host.run(['cat', layout.served])) as { revisionId: string }).revisionId : null);

  /** Starts an activation and resolves once its gateway was restarted, i.e. it waits without the lock. */
  async function activationInWait(prepared: OperationArgs<'prepare-revision'>): Promise<{ pending: Promise<CallOutcome> }> {
    const layout = layoutOf(prepared.owner);
    const before = (await host.run(['systemctl', 'show', '--property=InvocationID', '--value', layout.unitName])).trim();
    const pending = call(host, 'activate-revision', activateArgs(prepared));
    for (let i = 0; i < 100; i += 1) {
      const now = (await host.run(['systemctl', 'show', '--property=InvocationID', '--value', layout.unitName])).trim();
      if (now && now !== before) return { pending }; // wrapped: an async function would wait for it
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the activation never restarted its gateway');
  }

  before(async () => {
    host = await startTestHost({ name: 'hunl' });
  });
  after(() => host?.down());

  test(`${AGENTS} Agents activated at once all wait for readiness at the same time, none waiting out the lock`, async () => {
    const agents = Array.from({ length: AGENTS }, (_, i) => owner(`many${i}`));
    await ok(host, 'ensure-namespace', { namespace: agents[0]!.namespace });
    const revisions = agents.map((who) => slow({ ...who, namespace: agents[0]!.namespace }, 1, START_DELAY_MS));
    for (const args of revisions) await ok(host, 'prepare-revision', args);

    // Each gateway answers START_DELAY_MS after it starts. Had an activation held the lock through its
    // wait, the next gateway could start only after it returned; so every gateway must have started
    // before the first activation returned. Both clocks are the kernel's (a test host is a container).
    const returned: number[] = [];
    const outcomes = await Promise.all(revisions.map((args) => call(host, 'activate-revision', activateArgs(args)).then((outcome) => (returned.push(Date.now()), outcome))));
    const failures = outcomes.filter((outcome) => !outcome.line?.ok).map((outcome) => JSON.stringify(outcome.line ?? outcome.stdout.slice(-300)));
    assert.deepEqual(failures, []);
    const started = await Promise.all(agents.map(async (who) => Date.parse((await gatewayStarts(host, { ...who, namespace: agents[0]!.namespace })).at(-1)!.startedAt)));
    const holds = outcomes.map((outcome) => outcome.line?.timings.lockHoldMs ?? 0);
    process.stderr.write(`# ${AGENTS} at once: last gateway start ${Math.max(...started) - Math.min(...returned)} ms relative to the first return; lock holds ${holds.join(', ')} ms\n`);
    assert.ok(Math.max(...started) < Math.min(...returned), `a gateway started only after an activation had returned (lock holds ${holds.join(', ')} ms)`);
    for (const args of revisions) assert.equal(await servedRevision(layoutOf(args.owner)), args.revision.id);
  });

  test('a stop of the Agent during the wait wins: the activation answers conflict and writes no served.json', async () => {
    const who = owner('stopped');
    const layout = layoutOf(who);
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = slow(who, 1);
    await ok(host, 'prepare-revision', rev);
    const { pending } = await activationInWait(rev);
    const stop = await call(host, 'stop-revision', { owner: who, revision: rev.revision });
    const outcome = await pending;
    assert.equal(stop.line?.ok, true);
    assert.equal(outcome.line?.ok, false);
    assert.equal(outcome.line?.ok === false && outcome.line.error.code, 'conflict', JSON.stringify(outcome.line));
    assert.equal(await exists(host, layout.served), false);
    assert.equal(await exists(host, layout.current), false);
    assert.equal((await host.exec(['systemctl', 'is-active', layout.unitName])).stdout.trim(), 'inactive');
  });

  test('a retire of the revision during the wait wins', async () => {
    const who = owner('retired');
    const layout = layoutOf(who);
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = slow(who, 1);
    await ok(host, 'prepare-revision', rev);
    const { pending } = await activationInWait(rev);
    assert.deepEqual(await ok(host, 'retire-revision', { owner: who, revision: rev.revision }), { removed: true, wasCurrent: true });
    const outcome = await pending;
    assert.equal(outcome.line?.ok === false && outcome.line.error.code, 'conflict', JSON.stringify(outcome.line));
    assert.equal(await exists(host, layout.served), false);
  });

  test('a newer activation of the same Agent during the wait wins, and the first never writes served.json over it', async () => {
    const who = owner('newer');
    const layout = layoutOf(who);
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev1 = slow(who, 1, 5000);
    const rev2 = slow(who, 2, 300);
    await ok(host, 'prepare-revision', rev1);
    await ok(host, 'prepare-revision', rev2);
    const { pending } = await activationInWait(rev1);
    await ok(host, 'activate-revision', activateArgs(rev2));
    const outcome = await pending;
    assert.equal(outcome.line?.ok === false && outcome.line.error.code, 'conflict', JSON.stringify(outcome.line));
    assert.equal(await servedRevision(layout), rev2.revision.id);
    assert.equal(await exists(host, layout.activation), false);
  });

  test('a second activation of the same revision during the wait (a retry) wins; the first answers conflict', async () => {
    const who = owner('retry');
    const layout = layoutOf(who);
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = slow(who, 1, 3000);
    await ok(host, 'prepare-revision', rev);
    const { pending } = await activationInWait(rev);
    const retry = call(host, 'activate-revision', activateArgs(rev));
    const [first, second] = await Promise.all([pending, retry]);
    assert.equal(first.line?.ok === false && first.line.error.code, 'conflict', JSON.stringify(first.line));
    assert.equal(second.line?.ok, true, JSON.stringify(second.line));
    assert.equal(await servedRevision(layout), rev.revision.id);
  });

  test('a delete of the Namespace during the wait wins, and nothing of the Agent is written again', async () => {
    const who = owner('deleted');
    const layout = layoutOf(who);
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = slow(who, 1);
    await ok(host, 'prepare-revision', rev);
    const { pending } = await activationInWait(rev);
    await ok(host, 'delete-namespace', { namespace: who.namespace });
    const outcome = await pending;
    assert.equal(outcome.line?.ok === false && outcome.line.error.code, 'conflict', JSON.stringify(outcome.line));
    assert.equal(await exists(host, layout.dir), false);
  });
});
