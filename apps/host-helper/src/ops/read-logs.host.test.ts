// Real-host proof of read-logs: a compromised gateway writes escape sequences, a line under the
// helper's syslog tag and lines claiming another Agent's tag; read-logs returns its own lines as data,
// attributed to its unit and UID, never a sibling's, and bounded by `lines`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { AUDIT_IDENTIFIER } from '../audit/audit.js';
import { accountOf, activateArgs, fails, installTenantGateway, layoutOf, ok, owner, prepareArgs, type CallOptions } from '@occ-ssh/test-support';

const ESCAPES = '\\x1b[2J\\x1b]0;owned\\x07\\x9b31m';
const ATTACK = `
const { execFileSync } = require('node:child_process');
console.log('hostile ${ESCAPES} end');
// Its own stream to journald's stdout socket, under any tag it likes (the syslog and native sockets are not there for it).
execFileSync('/usr/bin/systemd-cat', ['-t', '${AUDIT_IDENTIFIER}', 'echo', 'operation=delete-namespace outcome=ok request=forged namespace=ns-victim']);
execFileSync('/usr/bin/systemd-cat', ['-t', 'openclaw-enterprise-gateway', 'echo', 'a line claiming any tag']);
// The filler only once the test says the revision is served: read-logs by revision shows what came after.
const state = process.env.OPENCLAW_STATE_DIR;
const wait = setInterval(() => {
  if (!require('node:fs').existsSync(state + '/served.go')) return;
  clearInterval(wait);
  for (let i = 0; i < 30; i++) console.log('filler ' + i);
  require('node:fs').writeFileSync(state + '/logged.done', 'ok\\n');
}, 100);
`;

describe('read-logs on a real host', () => {
  let host: TestHost;
  const hostile = owner('logger');
  const sibling = owner('quiet');
  let runtime: CallOptions;
  const prepared = prepareArgs(hostile, 1);

  before(async () => {
    host = await startTestHost({ name: 'hlogs' });
    runtime = { runtime: { openclawPath: await installTenantGateway(host, 'logger', ATTACK) } };
    for (const who of [hostile, sibling]) await ok(host, 'ensure-namespace', { namespace: who.namespace }, runtime);
    await ok(host, 'prepare-revision', prepared, runtime);
    await ok(host, 'activate-revision', activateArgs(prepared), runtime);
    const quiet = prepareArgs(sibling, 1);
    await ok(host, 'prepare-revision', quiet);
    await ok(host, 'activate-revision', activateArgs(quiet));
    // A second after serving began, so the filler is past read-logs' whole-second bound of the served time.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await host.run(['touch', `${layoutOf(hostile).state}/served.go`]);
    let done = '';
    for (let tries = 0; done === '' && tries < 60; tries++) {
      done = (await host.run(['sh', '-c', 'cat "$1" 2>/dev/null || true', 'sh', `${layoutOf(hostile).state}/logged.done`])).trim();
      if (done === '') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal(done, 'ok');
    await host.run(['journalctl', '--flush']);
    await host.run(['journalctl', `--namespace=${GATEWAY_LOG_NAMESPACE}`, '--sync']);
  });
  after(() => host?.down());

  test("the gateway's own lines, escapes as data, and the lines it forged under the helper's tag stamped with its own UID", async () => {
    const uid = Number((await host.run(['id', '-u', accountOf(hostile)])).trim());
    const page = await ok(host, 'read-logs', { owner: hostile, lines: 1000 }, runtime);
    assert.equal(page.unit, layoutOf(hostile).unitName);
    assert.equal(page.uid, uid);
    const messages = page.entries.map((e) => e.message ?? '');
    assert.ok(messages.includes('hostile \x1b[2J\x1b]0;owned\x07\u009b31m end'), messages.join('\n'));
    assert.ok(page.cursor);
    // The lines the gateway sent as a stream of its own under the helper's tag and another one, which its
    // unit's stdout socket leads into the gateways' journal namespace: journald stamps the sender's UID from the socket's credentials, so none of them is root's.
    // (Whether they also carry the unit depends on journald still finding the short-lived logger in
    // /proc, so read-logs may or may not return them; when it does, they are in this Agent's page.)
    const forged = (
      await host.run([
        'journalctl',
        `--namespace=${GATEWAY_LOG_NAMESPACE}`,
        '--no-pager',
        '-o',
        'json',
        '--output-fields=MESSAGE,_UID',
        `SYSLOG_IDENTIFIER=${AUDIT_IDENTIFIER}`,
        'SYSLOG_IDENTIFIER=openclaw-enterprise-gateway',
      ])
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { MESSAGE: string; _UID: string })
      .filter((entry) => entry.MESSAGE.includes('request=forged') || entry.MESSAGE === 'a line claiming any tag');
    assert.equal(forged.length, 2, JSON.stringify(forged));
    for (const entry of forged) assert.equal(Number(entry._UID), uid, 'stamped with the gateway account, never root');
    // The sibling's unit is another selection: none of the hostile lines are in it.
    const other = await ok(host, 'read-logs', { owner: sibling, lines: 1000 });
    assert.equal(other.entries.filter((e) => /hostile|forged|filler/.test(e.message ?? '')).length, 0);
  });

  test('lines bounds the answer to the newest entries; a cursor returns only what came after', async () => {
    const all = await ok(host, 'read-logs', { owner: hostile, lines: 1000 }, runtime);
    const page = await ok(host, 'read-logs', { owner: hostile, lines: 5 }, runtime);
    assert.deepEqual(page.entries, all.entries.slice(-5));
    const later = await ok(host, 'read-logs', { owner: hostile, lines: 1000, afterCursor: page.cursor! }, runtime);
    const seen = new Set(all.entries.map((e) => JSON.stringify(e)));
    assert.equal(later.entries.filter((e) => seen.has(JSON.stringify(e))).length, 0, later.entries.map((e) => e.message).join('\n'));
    assert.equal(later.cursor, later.entries.length === 0 ? page.cursor : later.cursor);
  });

  test('a revision that is not the served one is refused, naming the served one', async () => {
    const error = await fails(host, 'read-logs', { owner: hostile, lines: 10, revision: { id: 'rev-other', number: 9 } }, runtime);
    assert.equal(error.code, 'conflict');
    assert.match(error.message, new RegExp(`serves \\(${prepared.revision.id}\\)`));
    const since = await ok(host, 'read-logs', { owner: hostile, lines: 1000, revision: prepared.revision }, runtime);
    assert.ok(since.entries.some((e) => /filler/.test(e.message ?? '')));
  });

  test('an Agent that is not on the host is refused, before any journal is read', async () => {
    const error = await fails(host, 'read-logs', { owner: owner('absent'), lines: 10 });
    assert.equal(error.code, 'ownership');
  });
});
