// Real-host proof that a gateway cannot flood the host's journal: a compromised gateway logs at full
// speed through stdout (every priority), /dev/log, the journal's syslog socket and its native socket,
// as the Agent's account inside its unit; only its stdout reaches a journal, the gateways' namespace. The system journal, kept small here so that a flood would
// rotate it within seconds, keeps a marker line written before and every helper audit line, and holds
// not one line of the flooder's; read-logs still shows the flooder its own lines and its sibling none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { accountOf, activateArgs, installTenantGateway, layoutOf, ok, owner, prepareArgs, type CallOptions } from '@occ-ssh/test-support';
import type { AgentOwner } from '@occ-ssh/protocol';
import { AUDIT_JOURNAL_MATCHES } from '../audit/audit.js';

const FLOOD_SECONDS = 15;

/** Run once per Agent (not again on each restart) in a child of the gateway, so the gateway itself gets ready meanwhile. */
const FLOOD = `
const { randomBytes } = require('node:crypto');
const { spawn, spawnSync } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const end = Date.now() + ${FLOOD_SECONDS * 1000};
let n = 0;
// Random text does not compress: each line takes its full size in the journal (under 4096 bytes, so read-logs shows it).
const line = () => 'flood ' + n++ + ' ' + randomBytes(2200).toString('base64');
const syslog = ['/dev/log', '/run/systemd/journal/dev-log'].map((socket) => spawn('/usr/bin/logger', ['-u', socket, '-t', 'flood', '--size', '4096'], { stdio: ['pipe', 'ignore', 'ignore'] }));
// A logger that finds no socket exits: the flood goes on by the other paths.
for (const child of syslog) child.stdin.on('error', () => {});
function burst() {
  if (Date.now() > end) {
    for (const child of syslog) child.stdin.end();
    writeFileSync(process.env.OPENCLAW_STATE_DIR + '/flood.done', n + '\\n');
    return;
  }
  for (const child of syslog) if (child.stdin.writableLength < 1 << 20) for (let i = 0; i < 50; i++) child.stdin.write(line() + '\\n');
  // The native protocol, the way sd_journal_send() writes, with a priority of its own.
  spawnSync('/usr/bin/logger', ['--journald'], { input: 'MESSAGE=' + line() + '\\nPRIORITY=' + (n % 8) + '\\n' });
  let more = true;
  // stdout, with the <N> prefix journald reads as the line's priority: every rate-limit group of the unit.
  for (let i = 0; i < 200 && more; i++) more = process.stdout.write('<' + (i % 8) + '>' + line() + '\\n');
  if (more) setImmediate(burst);
  else process.stdout.once('drain', burst);
}
burst();
`;

/** As native `setup` (its own transient unit): a line through each socket and stdout, then success whether the sockets took them or not. */
const SETUP_LOGGER = `
if (process.argv[2] === 'setup') {
  const { spawnSync } = require('node:child_process');
  spawnSync('/usr/bin/logger', ['-t', 'setup-logger', '--', 'setup line via dev-log']);
  spawnSync('/usr/bin/logger', ['--journald'], { input: 'MESSAGE=setup line via native\\n' });
  console.log('setup line via stdout');
  process.exit(0);
}
`;

const ATTACK = `
const { existsSync, writeFileSync } = require('node:fs');
const started = process.env.OPENCLAW_STATE_DIR + '/flood.started';
if (!existsSync(started)) {
  writeFileSync(started, 'yes\\n');
  require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(FLOOD)}], { stdio: ['ignore', 'inherit', 'inherit'] });
}
`;

/** Small system journal files, so a flood rotates the oldest away within seconds; the namespace's limits as an operator sets them. */
const SYSTEM_JOURNAL_CONF = '[Journal]\nSystemMaxUse=8M\nSystemMaxFileSize=1M\n';
const NAMESPACE_CONF = '[Journal]\nSystemMaxUse=16M\nSystemMaxFileSize=2M\n';

describe('a compromised gateway cannot flood the host journal', () => {
  let host: TestHost;
  const flooder = owner('flooder');
  const sibling = owner('sibling');
  const upgraded = owner('upgraded');
  let runtime: CallOptions;

  const journal = async (args: readonly string[]) => (await host.run(['journalctl', '--no-pager', '--quiet', '-o', 'cat', ...args])).split('\n').filter((line) => line !== '');
  const uidOf = async (who: AgentOwner) => Number((await host.run(['id', '-u', accountOf(who)])).trim());

  before(async () => {
    host = await startTestHost({ name: 'hjournal' });
    await host.run(['install', '-d', '-m', '0755', '/etc/systemd/journald.conf.d']);
    await host.run(['sh', '-c', 'cat > /etc/systemd/journald.conf.d/90-small.conf'], { input: SYSTEM_JOURNAL_CONF });
    await host.run(['sh', '-c', `cat > /etc/systemd/journald@${GATEWAY_LOG_NAMESPACE}.conf`], { input: NAMESPACE_CONF });
    await host.run(['systemctl', 'restart', 'systemd-journald']);
    runtime = { runtime: { openclawPath: await installTenantGateway(host, 'flooder', ATTACK) } };
  });
  after(() => host?.down());

  test('the flood leaves the system journal whole and writes nothing into it; read-logs shows the flooder its own lines, its sibling none', async () => {
    const marker = `journal marker ${Date.now()}`;
    await host.run(['logger', '-t', 'occ-journal-marker', '--', marker]);
    await host.run(['journalctl', '--sync']);
    assert.deepEqual(await journal(['_UID=0', 'SYSLOG_IDENTIFIER=occ-journal-marker']), [marker], 'the marker is in the system journal before the flood');
    for (const who of [flooder, sibling]) await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const quiet = prepareArgs(sibling, 1);
    await ok(host, 'prepare-revision', quiet);
    await ok(host, 'activate-revision', activateArgs(quiet));
    const loud = prepareArgs(flooder, 1);
    await ok(host, 'prepare-revision', loud, runtime);
    await ok(host, 'activate-revision', activateArgs(loud), runtime);
    const done = await waitForFile(`${layoutOf(flooder).state}/flood.done`, FLOOD_SECONDS + 90);
    const written = Number(done.trim());
    await host.run(['journalctl', '--sync']);
    const uid = await uidOf(flooder);
    const unit = layoutOf(flooder).unitName;
    assert.ok(written > 10_000, `the flood wrote ${written} lines`);

    // Before the flood, in the system journal: the marker and the helper's audit lines are all still there.
    assert.deepEqual(await journal(['_UID=0', 'SYSLOG_IDENTIFIER=occ-journal-marker']), [marker]);
    const audited = await journal([...AUDIT_JOURNAL_MATCHES]);
    assert.equal(audited.filter((line) => / operation=(ensure-namespace|prepare-revision|activate-revision) outcome=ok /.test(` ${line} `)).length, 6, audited.join('\n'));
    // Not one line of the flooder's reached the system journal, by any of its paths.
    for (const match of [`_UID=${uid}`, `_SYSTEMD_UNIT=${unit}`]) {
      const lines = await journal([match]);
      assert.equal(lines.length, 0, `${match} in the system journal: ${lines.length} lines, the first ${lines[0]?.slice(0, 80)}`);
    }

    await host.run(['journalctl', `--namespace=${GATEWAY_LOG_NAMESPACE}`, '--sync']);
    const flood = (await journal([`--namespace=${GATEWAY_LOG_NAMESPACE}`, `_UID=${uid}`])).filter((line) => line.startsWith('flood '));
    process.stderr.write(`# flood: ${written} lines written in ${FLOOD_SECONDS} s, ${flood.length} kept in the namespace\n`);
    // Its stdout led into the namespace instead; the syslog and native sockets are not there for it at all.
    const byTransport = async (transport: string) => (await journal([`--namespace=${GATEWAY_LOG_NAMESPACE}`, `_UID=${uid}`, `_TRANSPORT=${transport}`])).filter((line) => line.startsWith('flood '));
    assert.ok((await byTransport('stdout')).length > 0, 'no stdout line of the flood in the namespace');
    for (const transport of ['syslog', 'journal']) assert.deepEqual(await byTransport(transport), [], `${transport} lines of the flood in the namespace`);

    const own = await ok(host, 'read-logs', { owner: flooder, lines: 1000 }, runtime);
    assert.ok(
      own.entries.some((entry) => /^flood \d+ /.test(entry.message ?? '')),
      JSON.stringify(own.entries.slice(-3)),
    );
    const other = await ok(host, 'read-logs', { owner: sibling, lines: 1000 });
    assert.deepEqual(
      other.entries.filter((entry) => /flood/.test(entry.message ?? '')),
      [],
    );
  });

  test('a gateway still running under the unit an earlier release wrote logs into the system journal: read-logs shows both, and its next activation moves it', async () => {
    const layout = layoutOf(upgraded);
    const listening = /^fixture gateway listening on /;
    await ok(host, 'ensure-namespace', { namespace: upgraded.namespace });
    const prepared = prepareArgs(upgraded, 1);
    await ok(host, 'prepare-revision', prepared);
    const { port } = await ok(host, 'activate-revision', activateArgs(prepared));
    const uid = await uidOf(upgraded);
    const selection = [`_SYSTEMD_UNIT=${layout.unitName}`, `_UID=${uid}`];
    assert.equal((await journal([`--namespace=${GATEWAY_LOG_NAMESPACE}`, ...selection])).filter((line) => listening.test(line)).length, 1);
    const before = await ok(host, 'read-logs', { owner: upgraded, lines: 1000 });
    assert.equal(before.entries.filter((entry) => listening.test(entry.message ?? '')).length, 1);

    // The unit as the release before LogNamespace= wrote it, and the gateway restarted under it.
    await host.run(['sed', '-i', '/^LogNamespace=\\|^LogRateLimit/d', layout.unitFile]);
    await host.run(['systemctl', 'daemon-reload']);
    await host.run(['systemctl', 'restart', layout.unitName]);
    await waitFor(async () => (await journal(selection)).some((line) => listening.test(line)), 60, 'the restarted gateway never logged into the system journal');

    // The older unit text does not make the Agent look broken: it is still the served revision.
    assert.deepEqual(await ok(host, 'verify-revision', { owner: upgraded, revision: prepared.revision }), { snapshot: true, current: true, served: true, port });
    const both = await ok(host, 'read-logs', { owner: upgraded, lines: 1000 });
    assert.equal(both.entries.filter((entry) => listening.test(entry.message ?? '')).length, 2, JSON.stringify(both.entries));
    assert.deepEqual(
      [...both.entries].sort((a, b) => a.time.localeCompare(b.time)),
      both.entries,
      'the two journals interleaved in time order',
    );
    // Following on from a cursor of the namespace reaches the lines in the system journal, and nothing twice.
    const later = await ok(host, 'read-logs', { owner: upgraded, lines: 1000, afterCursor: before.cursor! });
    assert.equal(later.entries.filter((entry) => listening.test(entry.message ?? '')).length, 1, JSON.stringify(later.entries));
    assert.deepEqual(both.entries.slice(-later.entries.length), later.entries);

    // Its next activation rewrites the unit (a changed unit text restarts it), and it logs into the namespace again.
    const again = await ok(host, 'activate-revision', activateArgs(prepared));
    assert.equal(again.unitChanged, true);
    assert.ok((await host.run(['cat', layout.unitFile])).split('\n').includes(`LogNamespace=${GATEWAY_LOG_NAMESPACE}`));
    await waitFor(async () => (await journal([`--namespace=${GATEWAY_LOG_NAMESPACE}`, ...selection])).filter((line) => listening.test(line)).length === 2, 60, 'no new line in the namespace');
  });

  test('native setup, in its transient unit, writes nothing to any journal: its stdout goes nowhere and the sockets are not there', async () => {
    const setupLogger = owner('setup-logger');
    const openclawPath = await installTenantGateway(host, 'setup-logger', SETUP_LOGGER);
    await ok(host, 'ensure-namespace', { namespace: setupLogger.namespace });
    const prepared = prepareArgs(setupLogger, 1);
    await ok(host, 'prepare-revision', prepared, { runtime: { openclawPath } });
    const setup = { id: 'setup-logs', completed: false, documents: [] };
    assert.equal((await ok(host, 'setup-workspace', { owner: setupLogger, revision: prepared.revision, setup }, { runtime: { openclawPath } })).workspace, 'applied');
    await host.run(['journalctl', '--sync']);
    const uid = await uidOf(setupLogger);
    assert.deepEqual(await journal([`_UID=${uid}`]), [], 'nothing of the setup account in the system journal');
    await host.run(['journalctl', `--namespace=${GATEWAY_LOG_NAMESPACE}`, '--sync']);
    const logged = await journal([`--namespace=${GATEWAY_LOG_NAMESPACE}`, `_UID=${uid}`]);
    assert.deepEqual(
      logged.filter((line) => line.startsWith('setup line')),
      [],
      'its stdout goes nowhere (StandardOutput=null), its sockets are denied',
    );
  });

  async function waitForFile(path: string, seconds: number): Promise<string> {
    let text = '';
    await waitFor(async () => (text = await host.run(['sh', '-c', 'cat "$1" 2>/dev/null || true', 'sh', path])) !== '', seconds, `${path} never appeared`);
    return text;
  }
});

async function waitFor(check: () => Promise<boolean>, seconds: number, message: string): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(message);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
