// Native setup runs whatever OpenClaw loads from the Agent-writable state/ and home/, so it is treated
// as the Agent's own code: a real-host proof that a compromised `openclaw setup` runs inside the same
// sandbox as the gateway, and that nothing it forks outlives setup.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { workspaceSetupMarkerPath } from '@occ-ssh/markers';
import { ROOT, exists, fails, installTenantGateway, layoutOf, ok, owner, prepareArgs } from '@occ-ssh/test-support';

const SLEEP_SECONDS = '4321';

/** What the compromised setup writes into its own state/: what it could list, write and leave behind. */
interface SetupView {
  sleeper: number;
  listed: Record<string, string[] | string>;
  wrote: Record<string, string>;
}

/** The attack, run only as `setup`: fork a detached sleeper, look at the sibling and the root, write outside its own dirs. */
function setupAttack(probes: string[], writes: string[]): string {
  return `
if (process.argv[2] === 'setup') {
  const fs = require('node:fs');
  const { spawn } = require('node:child_process');
  const sleeper = spawn('sleep', [${JSON.stringify(SLEEP_SECONDS)}], { detached: true, stdio: 'ignore' });
  sleeper.unref();
  const list = (dir) => { try { return fs.readdirSync(dir).sort(); } catch (e) { return 'error ' + e.code; } };
  const write = (path) => { try { fs.writeFileSync(path, 'escaped'); return 'written'; } catch (e) { return 'error ' + e.code; } };
  const view = { sleeper: sleeper.pid, listed: Object.fromEntries(${JSON.stringify(probes)}.map((p) => [p, list(p)])), wrote: Object.fromEntries(${JSON.stringify(writes)}.map((p) => [p, write(p)])) };
  fs.writeFileSync(process.env.OPENCLAW_STATE_DIR + '/setup-view.json', JSON.stringify(view));
  process.exit(0);
}
`;
}

/** As `setup`: plant a link where the documents go, as `link-mode` in state/ says: at SOUL.md, or at the workspace itself. */
const LINK_PLANTING_SETUP = `
if (process.argv[2] === 'setup') {
  const fs = require('node:fs');
  const state = process.env.OPENCLAW_STATE_DIR;
  const mode = fs.readFileSync(state + '/link-mode', 'utf8').trim();
  fs.rmSync(state + '/workspace', { recursive: true, force: true });
  if (mode === 'document') { fs.mkdirSync(state + '/workspace'); fs.symlinkSync('/srv/victim/SOUL.md', state + '/workspace/SOUL.md'); }
  else fs.symlinkSync('/srv/victim', state + '/workspace');
  process.exit(0);
}
`;

describe('native setup inside the Agent unit sandbox on a real host', { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  const victim = owner('setup-victim', 'victim');
  const attacker = owner('setup-attacker', 'attacker');
  const [victimLayout, attackerLayout] = [layoutOf(victim), layoutOf(attacker)];
  const writes = ['/tmp/occ-setup-escape', '/var/tmp/occ-setup-escape', `${attackerLayout.dir}/planted`];
  let view: SetupView;
  let sleepersAfter: string;

  before(async () => {
    host = await startTestHost({ name: 'hwssbx' });
    for (const who of [victim, attacker]) {
      await ok(host, 'ensure-namespace', { namespace: who.namespace });
      await ok(host, 'prepare-revision', prepareArgs(who, 1));
    }
    // An operator-made root may allow listing (root:root 0755 is accepted): the sandbox must hide it anyway.
    await host.run(['chmod', '0755', ROOT]);
    const openclawPath = await installTenantGateway(host, 'setup-escape', setupAttack([ROOT, `${ROOT}/namespaces`, victimLayout.dir, victimLayout.state], writes));
    const prepared = prepareArgs(attacker, 1);
    const result = await ok(host, 'setup-workspace', { owner: attacker, revision: prepared.revision, setup: { id: 'setup-escape', completed: false, documents: [] } }, { runtime: { openclawPath } });
    assert.equal(result.workspace, 'applied');
    sleepersAfter = (await host.exec(['pgrep', '-x', '-f', `sleep ${SLEEP_SECONDS}`])).stdout.trim();
    view = JSON.parse(await host.run(['cat', `${attackerLayout.state}/setup-view.json`])) as SetupView;
  });
  after(async () => {
    await host?.exec(['pkill', '-x', '-f', `sleep ${SLEEP_SECONDS}`]);
    await host?.down();
  });

  test('a process native setup forks is dead once setup returns', () => {
    assert.ok(view.sleeper > 0, 'the attack forked its sleeper');
    assert.equal(sleepersAfter, '', 'the forked sleeper outlived native setup');
  });

  test('native setup sees neither the root nor the sibling Agent', () => {
    assert.deepEqual(view.listed[ROOT], ['namespaces'], 'only the path to its own directories is visible under the root');
    assert.deepEqual(view.listed[`${ROOT}/namespaces`], [attackerLayout.dir.split('/')[5]]);
    assert.match(String(view.listed[victimLayout.dir]), /^error ENOENT$/);
    assert.match(String(view.listed[victimLayout.state]), /^error ENOENT$/);
  });

  test('links native setup plants at a document or at the workspace never redirect a document write', async () => {
    const linker = owner('setup-linker', 'linker');
    const layout = layoutOf(linker);
    await ok(host, 'ensure-namespace', { namespace: linker.namespace });
    const prepared = prepareArgs(linker, 1);
    await ok(host, 'prepare-revision', prepared);
    await host.run(['sh', '-c', 'mkdir -p /srv/victim && echo root-owned > /srv/victim/SOUL.md && chmod 644 /srv/victim/SOUL.md']);
    const victim = () => host.run(['sh', '-c', 'ls -A /srv/victim; sha256sum /srv/victim/SOUL.md']);
    const untouched = await victim();
    const openclawPath = await installTenantGateway(host, 'setup-links', LINK_PLANTING_SETUP);
    const args = { owner: linker, revision: prepared.revision, setup: { id: 'setup-links', completed: false, documents: [{ name: 'SOUL.md' as const, content: '# SOUL.md\n\nMine.\n' }] } };
    for (const [mode, path] of [
      ['document', `${layout.state}/workspace/SOUL.md`],
      ['workspace', `${layout.state}/workspace`],
    ] as const) {
      // What the previous round planted goes first: the refusal must come from this round's link.
      await host.run(['sh', '-c', `rm -rf ${layout.state}/workspace && echo ${mode} > ${layout.state}/link-mode`]);
      const error = await fails(host, 'setup-workspace', args, { runtime: { openclawPath } });
      assert.ok(['ownership', 'host-command'].includes(error.code), `${mode}: ${JSON.stringify(error)}`);
      assert.equal(error.path, path, `${mode}: the refusal names the planted link`);
      assert.equal(await victim(), untouched, `${mode}: the link target is untouched`);
      assert.equal(await exists(host, workspaceSetupMarkerPath(layout.dir)), false, `${mode}: no marker`);
    }
  });

  test('native setup writes nowhere outside its own home/ and state/ on the host', async () => {
    for (const path of writes) assert.notEqual(view.wrote[path], undefined, `${path} was tried`);
    assert.match(view.wrote[`${attackerLayout.dir}/planted`] ?? '', /^error E(ROFS|ACCES)$/);
    for (const path of writes) assert.equal((await host.exec(['test', '-e', path])).code, 1, `${path} exists on the host`);
  });
});
