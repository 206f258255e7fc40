// Real-host proof of the audit trail: every mutating operation leaves one journal line, written by
// root under a fixed identifier, with its resources, request ID, outcome and the digest of the running code.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { AUDIT_JOURNAL_MATCHES } from './audit.js';
import { bundleDigest, unpackLoader } from '@occ-ssh/helper-call';
import { helperArtifact, activateArgs, call, callRaw, fails, ok, owner, prepareArgs } from '@occ-ssh/test-support';

describe('the host audit trail', () => {
  let host: TestHost;
  const who = owner('audit', 'audited');
  const journal = async () => (await host.run(['journalctl', '--no-pager', '-o', 'cat', ...AUDIT_JOURNAL_MATCHES])).trim().split('\n').filter(Boolean);

  before(async () => {
    host = await startTestHost({ name: 'haudit' });
  });
  after(() => host?.down());

  test('mutating operations are recorded with resources, request, outcome and helper digest; reads are not', async () => {
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const prepared = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', prepared);
    await ok(host, 'activate-revision', activateArgs(prepared, { OCC_IAM_PLACEHOLDER: 'opaque-audit-4b1d' }));
    await host.run(['journalctl', '--flush']);
    const { recentAudit } = await ok(host, 'inventory', {});
    const lines = await journal();
    assert.deepEqual(
      recentAudit.map((l) => l.replace(/^.*?occ-ssh-helper\[\d+\]: /, '')),
      lines,
      'inventory shows the same lines to occ-ssh status',
    );
    // The digest an operator computes from the shipped artifact: SHA-256 of the bundle inside the loader.
    assert.ok(unpackLoader(helperArtifact()), 'the artifact carries its compressed bundle');
    const digest = bundleDigest(helperArtifact());
    // The build writes the release's version into the helper: its result lines and its audit lines name it.
    const version = (await call(host, 'probe', {})).line?.helperVersion ?? '';
    assert.match(version, /^\d+\.\d+\.\d+/);
    const VERSION = version.replace(/\./g, '\\.');
    assert.deepEqual(
      lines.map((l) => /^operation=(\S+) outcome=(\S+) /.exec(l)?.slice(1).join(' ')),
      ['ensure-namespace ok', 'prepare-revision ok', 'activate-revision ok'],
    );
    const activation = lines[2]!;
    assert.match(
      activation,
      new RegExp(
        `request=t-\\d+-\\d+ namespace=${who.namespace.id} agent=${who.agent.id} revision=${prepared.revision.id} ms=\\d+ changes=[1-9]\\d* plan=[0-9a-f]{64},[0-9a-f]{64} version=${VERSION} helper=${digest}$`,
      ),
    );
    for (const line of lines) {
      assert.doesNotMatch(line, /opaque-|password|gateway|"/, 'no placeholder, document or password in an audit line');
      assert.match(line, new RegExp(`helper=${digest}$`));
    }
  });

  test('a refused operation is recorded with its error code', async () => {
    const stranger = { ...who, servicePrincipal: { id: 'sp-stranger' } };
    const error = await fails(host, 'prepare-revision', prepareArgs(stranger, 2));
    assert.equal(error.code, 'ownership');
    await host.run(['journalctl', '--flush']);
    const last = (await journal()).at(-1) ?? '';
    assert.match(last, /^operation=prepare-revision outcome=ownership request=t-\d+-\d+ namespace=\S+ agent=\S+ revision=\S+ ms=\d+ changes=0 version=\S+ helper=[0-9a-f]{64}$/);
  });

  test('an operation that cannot be decoded, or only reads, leaves no line', async () => {
    const before = (await journal()).length;
    const garbled = await callRaw(host, Buffer.from('{"operation":"delete-namespace"}').toString('base64'));
    assert.equal(garbled.line?.ok, false);
    assert.equal((await call(host, 'probe', {})).line?.ok, true);
    await host.run(['journalctl', '--flush']);
    assert.equal((await journal()).length, before);
  });
});
