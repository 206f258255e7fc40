// Real-host proof that a gateway stopping every process of its UID (kill(-1, SIGSTOP), allowed by UID
// across the host's one PID namespace) delays only its own operations, by a bound, and leaves no
// stopped process of its UID behind: not when the helper answers, and not when the helper is killed.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { failureOf } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { accountOf, activateArgs, call, installTenantGateway, layoutOf, ok, owner, prepareArgs, shell, type CallOutcome } from '@occ-ssh/test-support';

/** The attack, as the gateway inside its unit: stop every process of its UID, every 2 ms, for ever. */
const STOPPER_ATTACK = `
require('node:fs').mkdirSync(process.env.NODE_COMPILE_CACHE, { recursive: true });
setInterval(() => { try { process.kill(-1, 'SIGSTOP'); } catch {} }, 2);
`;

/** Calls made until the watcher catches an as-account child alive and kills the helper beside it. */
const KILL_ATTEMPTS = 5;

const DOCUMENTS = [{ name: 'SOUL.md' as const, content: '# SOUL.md\n\nSteady.\n' }];

describe('a gateway that stops every process of its UID', { timeout: 15 * 60_000 }, () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hstopper' });
  });
  after(() => host?.down());

  /** Processes of the account outside its gateway unit, with their state: the helper's children it stopped. */
  async function strays(account: string, unit: string): Promise<string> {
    const script = `for p in $(pgrep -u "$1"); do grep -q "/$2" /proc/$p/cgroup 2>/dev/null || ps -o pid=,stat=,args= -p $p; done; true`;
    return (await host.run(['sh', '-c', script, 'sh', account, unit])).trim();
  }

  test('its redeploy and workspace setup end within their bounds, a sibling is not held, and no stopped child is left', async () => {
    const calm = owner('calm', 'stopper');
    const calmRev = prepareArgs(calm, 1);
    await ok(host, 'ensure-namespace', { namespace: calm.namespace });
    await ok(host, 'prepare-revision', calmRev);
    await ok(host, 'activate-revision', activateArgs(calmRev));

    // The same redeploy of an Agent whose gateway attacks nothing, for comparison.
    const calmStarted = Date.now();
    const calmNext = prepareArgs(calm, 2);
    await ok(host, 'prepare-revision', calmNext);
    await ok(host, 'activate-revision', activateArgs(calmNext));
    process.stderr.write(`# redeploy (prepare + activate) of a quiet Agent: ${Date.now() - calmStarted} ms\n`);

    const stopper = owner('stopper', 'stopper');
    const account = accountOf(stopper);
    const { unitName } = layoutOf(stopper);
    const runtime = { openclawPath: await installTenantGateway(host, 'stopper', STOPPER_ATTACK) };
    const first = prepareArgs(stopper, 1);
    await ok(host, 'ensure-namespace', { namespace: stopper.namespace });
    await ok(host, 'prepare-revision', first, { runtime });
    await ok(host, 'activate-revision', activateArgs(first), { runtime });
    await sleep(500);

    // A redeploy: activation measures the compile cache with du as the account, which the gateway stops.
    const started = Date.now();
    const second = prepareArgs(stopper, 2);
    await ok(host, 'prepare-revision', second, { runtime });
    const activation = await call(host, 'activate-revision', activateArgs(second), { runtime });
    const redeployMs = Date.now() - started;
    assert.ok(activation.line?.ok, JSON.stringify(activation.line));
    process.stderr.write(`# redeploy (prepare + activate) of the stopper's Agent: ${redeployMs} ms (activation ${activation.ms} ms)\n`);
    assert.ok(redeployMs < 60_000, `redeploy took ${redeployMs} ms`);
    assert.equal(await strays(account, unitName), '', 'no process of the account outside its unit after the redeploy');

    // Workspace setup inspects and writes as the account: each child is stopped, and bounded.
    const setup = { owner: stopper, revision: second.revision, setup: { id: 'setup-stopped', completed: false, documents: DOCUMENTS } };
    const sibling = call(host, 'stop-revision', { owner: calm, revision: calmNext.revision });
    const workspace = await call(host, 'setup-workspace', setup, { runtime });
    const siblingStop = await sibling;
    process.stderr.write(`# the stopper's setup-workspace: ${workspace.ms} ms, ${JSON.stringify(workspace.line?.ok ? workspace.line.result : workspace.line?.error)}\n`);
    process.stderr.write(`# a sibling's stop-revision meanwhile: ${siblingStop.ms} ms\n`);
    assert.ok(workspace.line, 'the helper answered');
    assert.ok(workspace.ms < 60_000, `setup-workspace took ${workspace.ms} ms`);
    if (!workspace.line.ok) assert.equal(failureOf(workspace.line.error.code), 'retryable', JSON.stringify(workspace.line.error));
    assert.ok(siblingStop.line?.ok, JSON.stringify(siblingStop.line));
    assert.ok(siblingStop.ms < 20_000, `the sibling's stop took ${siblingStop.ms} ms`);
    assert.equal(await strays(account, unitName), '', 'no process of the account outside its unit after workspace setup');

    // The helper killed outright the moment one of its as-account children exists (and is stopped, or
    // about to be): the child goes with it. Watched on the host itself, to kill within milliseconds.
    // The helper kills a stopped child within its own bound, so on a loaded machine the watcher can
    // miss the child's short life, or see it and still lose the race to the helper's answer: a call
    // the watcher did not kill beside a child is left to end and tried again.
    const killer = [
      'for i in $(seq 1 300); do',
      `  for p in $(pgrep -u ${account}); do grep -q "/${unitName}" /proc/$p/cgroup 2>/dev/null && continue;`,
      `    s=$(ps -o stat=,comm= -p $p); pkill -KILL -f '^${host.nodePath} - '; echo "$p $s"; exit 0; done`,
      '  sleep 0.02; done; echo none',
    ].join('\n');
    let seen = 'none';
    let outcome: CallOutcome | undefined;
    for (let attempt = 1; attempt <= KILL_ATTEMPTS && (seen === 'none' || outcome?.line !== undefined); attempt++) {
      const killed = call(host, 'setup-workspace', { ...setup, setup: { ...setup.setup, id: `setup-killed-${attempt}` } }, { runtime });
      seen = (await shell(host, killer)).trim();
      outcome = await killed;
      process.stderr.write(`# attempt ${attempt}: the child the helper was killed beside: ${seen}; the call: ${outcome.line ? JSON.stringify(outcome.line.ok) : 'no answer (helper killed)'}\n`);
    }
    await sleep(1000);
    assert.notEqual(seen, 'none', `an as-account child was seen in ${KILL_ATTEMPTS} attempts`);
    assert.equal(outcome?.line, undefined, 'the helper beside the child was killed before it answered');
    assert.equal(await strays(account, unitName), '', 'no process of the account outlives the killed helper');

    // Its deletion frees the account: nothing of it is left running anywhere.
    const uid = (await host.run(['id', '-u', account])).trim();
    await ok(host, 'delete-agent', { owner: stopper });
    assert.equal((await host.exec(['pgrep', '-u', uid])).code, 1);
  });
});
