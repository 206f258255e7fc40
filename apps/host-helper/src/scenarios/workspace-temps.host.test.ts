// The account program's write first unlinks temps a killed write left (`.<document>.occ-<12 hex>`).
// Those names sit in the Agent's own workspace, so a compromised native setup can plant them: a
// real-host proof that the sweep removes only the names it owns, as the Agent, never through a link
// or into a directory, and that nothing the planted names point at changes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OperationArgs } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { installTenantGateway, layoutOf, ok, owner, prepareArgs, shell } from '@occ-ssh/test-support';

const VICTIM = '/srv/temps-victim/keep';
const DOCUMENTS: OperationArgs<'setup-workspace'>['setup']['documents'] = [
  { name: 'SOUL.md', content: '# SOUL.md\n\nCalm.\n' },
  { name: 'AGENTS.md', content: '# AGENTS.md\n\nBe brief.\n' },
];
/** What the setup plants in state/workspace, by name: the names the sweep may remove, and the ones it must keep. */
const SWEPT = ['.SOUL.md.occ-0123456789ab', '.AGENTS.md.occ-ddddeeeeffff'];
const KEPT = ['.AGENTS.md.occ-aaaaaaaaaaaa', '.USER.md.occ-bbbbbbbbbbbb', '.SOUL.md.occ-nothex', '.SOUL.md.occ-0123456789ab.x'];

/** As `setup`, once: a link to a root-only file and a hard link to the Agent's own file (in state/: home/ is another mount in the sandbox) under swept names, a directory and three near-miss names beside them. */
const PLANTING_SETUP = `
if (process.argv[2] === 'setup') {
  const fs = require('node:fs');
  const state = process.env.OPENCLAW_STATE_DIR, ws = state + '/workspace';
  if (!fs.existsSync(state + '/planted.json')) try {
    fs.mkdirSync(ws, { recursive: true });
    fs.symlinkSync(${JSON.stringify(VICTIM)}, ws + '/.SOUL.md.occ-0123456789ab');
    fs.writeFileSync(state + '/own-file', 'the Agent keeps this');
    fs.linkSync(state + '/own-file', ws + '/.AGENTS.md.occ-ddddeeeeffff');
    fs.mkdirSync(ws + '/.AGENTS.md.occ-aaaaaaaaaaaa');
    fs.writeFileSync(ws + '/.AGENTS.md.occ-aaaaaaaaaaaa/inner', 'inside a directory');
    for (const name of ['.USER.md.occ-bbbbbbbbbbbb', '.SOUL.md.occ-nothex', '.SOUL.md.occ-0123456789ab.x']) fs.writeFileSync(ws + '/' + name, name);
    fs.writeFileSync(state + '/planted.json', '{}');
  } catch (e) { fs.writeFileSync(state + '/plant-error', String(e.stack)); }
  process.exit(0);
}
`;

describe('planted temp names in the workspace on a real host', { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  const who = owner('temps-planter');
  const layout = layoutOf(who);
  const workspace = `${layout.state}/workspace`;
  const prepared = prepareArgs(who, 1);
  const args: OperationArgs<'setup-workspace'> = { owner: who, revision: prepared.revision, setup: { id: 'setup-temps', completed: false, documents: DOCUMENTS } };
  let runtime: { openclawPath: string };
  /** Type, owner, size and digest of each entry of the workspace, one line each. */
  const listing = () => shell(host, `cd ${workspace} && find . -mindepth 1 -printf '%p %y %U %s\\n' | sort`);

  before(async () => {
    host = await startTestHost({ name: 'hwstmp' });
    await host.run(['sh', '-c', `mkdir -p ${VICTIM.replace(/\/[^/]+$/, '')} && echo root-only > ${VICTIM} && chmod 0600 ${VICTIM}`]);
    runtime = { openclawPath: await installTenantGateway(host, 'temps-planter', PLANTING_SETUP) };
    await ok(host, 'ensure-namespace', { namespace: who.namespace }, { runtime });
    await ok(host, 'prepare-revision', prepared, { runtime });
  });
  after(() => host?.down());

  test('the sweep unlinks only the names it owns, never through a link or into a directory, and setup succeeds', async () => {
    const result = await ok(host, 'setup-workspace', args, { runtime });
    assert.equal((await host.exec(['test', '-e', `${layout.state}/planted.json`])).code, 0, (await host.exec(['cat', `${layout.state}/plant-error`])).stdout);
    assert.equal(result.workspace, 'applied');
    for (const { name, content } of DOCUMENTS) assert.equal(await host.run(['cat', `${workspace}/${name}`]), content, name);
    const entries = await listing();
    for (const name of SWEPT) assert.equal(entries.includes(`./${name} `), false, `${name} is swept:\n${entries}`);
    for (const name of KEPT) assert.ok(entries.includes(`./${name} `), `${name} is kept:\n${entries}`);
    assert.equal(await host.run(['cat', `${workspace}/.AGENTS.md.occ-aaaaaaaaaaaa/inner`]), 'inside a directory');
    // The link's target and the hard link's other name are untouched: unlink removed only the names.
    assert.equal(await host.run(['cat', VICTIM]), 'root-only\n');
    assert.equal(await host.run(['stat', '-c', '%U %a', VICTIM]), 'root 600\n');
    assert.equal(await host.run(['cat', `${layout.state}/own-file`]), 'the Agent keeps this');
    assert.equal(await host.run(['stat', '-c', '%h', `${layout.state}/own-file`]), '1\n');
    // Every entry left in the workspace is the Agent's: nothing was created there as root.
    const uid = (await host.run(['stat', '-c', '%u', workspace])).trim();
    for (const line of entries.trim().split('\n')) assert.equal(line.split(' ')[2], uid, line);
  });

  test('the same call again verifies and changes nothing', async () => {
    const before = await listing();
    assert.equal((await ok(host, 'setup-workspace', args, { runtime })).workspace, 'verified');
    assert.equal(await listing(), before);
  });
});
