// Real-host proof that the audit trail is root's alone: a compromised gateway writes lines under the
// helper's syslog tag, as the Agent's account inside its unit, and neither inventory's recentAudit
// nor the documented journalctl command shows them, while every real line still shows.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { AUDIT_IDENTIFIER, AUDIT_JOURNAL_MATCHES } from '../audit/audit.js';
import { accountOf, activateArgs, call, installTenantGateway, layoutOf, ok, owner, prepareArgs, type CallOptions } from '@occ-ssh/test-support';
import type { OperationArgs, OperationName } from '@occ-ssh/protocol';

const FORGED = 12;

/**
 * Twelve lines through the syslog socket, as the Agent wrote them, one over the native protocol
 * claiming root's trusted fields (both sockets are denied in the unit now, so these reach no journal),
 * and twelve as streams of its own to journald's stdout socket under the helper's tag, which it keeps.
 */
const ATTACK = `
const { spawnSync } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const helper = 'f'.repeat(64);
const line = (i) => 'operation=ensure-namespace outcome=ok request=forged-' + i + ' namespace=ns-victim ms=1 changes=0 helper=' + helper;
for (let i = 1; i <= ${FORGED}; i++) {
  spawnSync('/usr/bin/logger', ['-t', '${AUDIT_IDENTIFIER}', '-p', 'authpriv.notice', '--', line('syslog-' + i)]);
  spawnSync('/usr/bin/systemd-cat', ['-t', '${AUDIT_IDENTIFIER}', '-p', 'notice', 'echo', line('stream-' + i)]);
}
const fields = ['SYSLOG_IDENTIFIER=${AUDIT_IDENTIFIER}', '_UID=0', '_TRANSPORT=syslog', '_COMM=logger', 'MESSAGE=operation=delete-namespace outcome=ok request=forged-native namespace=ns-victim ms=1 changes=0 helper=' + helper];
spawnSync('/usr/bin/logger', ['--journald'], { input: fields.join('\\n') + '\\n' });
writeFileSync(process.env.OPENCLAW_STATE_DIR + '/forged.done', '${2 * FORGED + 1}\\n');
`;

const OPERATIONS_DOC = fileURLToPath(new URL('../../../../docs/operations.md', import.meta.url));

describe('a compromised gateway cannot forge the audit trail', () => {
  let host: TestHost;
  const forger = owner('forger');

  before(async () => {
    host = await startTestHost({ name: 'haforge' });
  });
  after(() => host?.down());

  test('lines written under the helper tag by an Agent account are never shown; the newest ten real ones are', async () => {
    const runtime: CallOptions = { runtime: { openclawPath: await installTenantGateway(host, 'forger', ATTACK) } };
    const real: string[] = [];
    const step = async <O extends OperationName>(operation: O, args: OperationArgs<O>) => {
      const outcome = await call(host, operation, args, runtime);
      assert.equal(outcome.line?.ok, true, `${operation}: ${outcome.stdout.slice(-400)}`);
      real.push(outcome.requestId!);
    };
    await step('ensure-namespace', { namespace: forger.namespace });
    // More real lines than recentAudit shows, so that it must pick the newest real ones.
    for (let i = 0; i < 8; i++) await step('ensure-namespace', { namespace: owner(`bystander-${i}`).namespace });
    const prepared = prepareArgs(forger, 1);
    await step('prepare-revision', prepared);
    // The attack runs when the gateway starts, before activation's own audit line.
    await step('activate-revision', activateArgs(prepared));
    assert.equal((await host.run(['cat', `${layoutOf(forger).state}/forged.done`])).trim(), String(2 * FORGED + 1));
    await step('stop-revision', { owner: forger, revision: prepared.revision });
    await host.run(['journalctl', '--flush']);
    await host.run(['journalctl', `--namespace=${GATEWAY_LOG_NAMESPACE}`, '--sync']);

    // The forged lines its own streams carried are in the gateways' journal namespace (the only journal
    // the unit reaches) under the helper's tag, each stamped with the Agent's real UID and the stdout transport.
    const uid = (await host.run(['id', '-u', accountOf(forger)])).trim();
    const tagged = (await host.run(['journalctl', `--namespace=+${GATEWAY_LOG_NAMESPACE}`, '--no-pager', '-o', 'json', '-t', AUDIT_IDENTIFIER]))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    const forged = tagged.filter((entry) => / request=forged-/.test(entry.MESSAGE ?? ''));
    assert.deepEqual(
      forged.map((entry) => / request=(forged-\S+) /.exec(entry.MESSAGE ?? '')?.[1]).sort(),
      Array.from({ length: FORGED }, (_, i) => `forged-stream-${i + 1}`).sort(),
      'every streamed line reached the namespace; nothing sent to the syslog or native socket did',
    );
    assert.deepEqual([...new Set(forged.map((entry) => entry._UID))], [uid], 'journald stamps the writer’s own UID, whatever fields it sends');
    assert.deepEqual([...new Set(forged.map((entry) => entry._TRANSPORT))], ['stdout']);

    const { recentAudit } = await ok(host, 'inventory', {}, runtime);
    assert.equal(recentAudit.filter((line) => line.includes('forged')).length, 0, recentAudit.join('\n'));
    assert.deepEqual(
      recentAudit.map((line) => / request=(\S+) /.exec(line)?.[1]),
      real.slice(-10),
      'the ten newest real lines, oldest first',
    );

    // The command operations.md documents selects the same lines.
    assert.ok(readFileSync(OPERATIONS_DOC, 'utf8').includes(`journalctl ${AUDIT_JOURNAL_MATCHES.join(' ')}`), 'operations.md documents the selection');
    const documented = (await host.run(['journalctl', '--no-pager', '-o', 'cat', ...AUDIT_JOURNAL_MATCHES])).trim().split('\n');
    assert.equal(documented.length, real.length);
    assert.deepEqual(
      documented.slice(-10),
      recentAudit.map((line) => line.replace(/^.*?occ-ssh-helper\[\d+\]: /, '')),
    );
  });
});
