// On a host of the strace variant: an ssh client killed right after one of the helper's progress
// lines stops the helper before its next change. The helper's audit line says `cancelled` and how
// many changes it had begun, fewer than an uncut run of the same operation; the retry converges.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { SLOW_HELPER } from './kill-trials.js';
import { auditOf, call, helperArtifact, ok } from '@occ-ssh/test-support';
import { ownerOf, prepareArgs } from '../host/fixture-args.js';
import { HostLink } from '../host/ssh.js';

describe('client kills placed by the helper progress, on a real host', () => {
  let host: TestHost;
  let link: HostLink;

  before(async () => {
    helperArtifact();
    host = await startTestHost({ variant: 'strace' });
    link = new HostLink(host);
  });

  after(async () => {
    await link?.close();
    await host?.down();
  });

  it('a prepare killed after its fifth line stops between two changes, and the retry converges', async () => {
    const uncutOwner = ownerOf('uncut');
    await ok(link, 'ensure-namespace', { namespace: uncutOwner.namespace });
    const uncut = await call(link, 'prepare-revision', prepareArgs(uncutOwner, 1), { wrap: SLOW_HELPER });
    assert.equal(uncut.line?.ok, true);
    const whole = await auditOf(link, uncut.requestId!);
    assert.equal(whole?.outcome, 'ok');

    const owner = ownerOf('cut');
    await ok(link, 'ensure-namespace', { namespace: owner.namespace });
    const args = prepareArgs(owner, 1);
    const cut = await call(link, 'prepare-revision', args, { killAfterLines: 5, wrap: SLOW_HELPER });
    assert.equal(cut.killed, true, 'the client was killed before the result line');
    assert.equal(cut.line, undefined);
    // The helper ends on its own, at its next check, and writes its audit line then.
    let audit = await auditOf(link, cut.requestId!);
    for (let i = 0; i < 50 && !audit; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      audit = await auditOf(link, cut.requestId!);
    }
    assert.equal(audit?.outcome, 'cancelled');
    assert.ok(audit.changes > 0 && audit.changes < whole!.changes, `stopped after ${audit.changes} of ${whole!.changes} changes`);
    assert.equal((await host.exec(['pgrep', '-f', '^flock --exclusive'])).code, 1, 'the lock is free');

    const retry = await ok(link, 'prepare-revision', args);
    assert.equal(retry.ready, true);
  });
});
