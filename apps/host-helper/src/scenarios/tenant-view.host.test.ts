// Real-host proof of what a compromised gateway and a sibling account can see: only the Agent's own
// home/, state/ and current snapshot inside the unit, and no other Agent's launch placeholders anywhere.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { environmentFileLine } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import {
  ROOT,
  UNIT_DIR,
  accountOf,
  activateArgs,
  exists,
  fails,
  gatewayEnviron,
  installTenantGateway,
  layoutOf,
  mainPid,
  ok,
  owner,
  prepareArgs,
  statOf,
  unitProperty,
  unitState,
} from '@occ-ssh/test-support';

/** What the spying gateway writes to its state directory: argv run inside the unit and paths it tried. */
interface TenantView {
  find: { code: number | null; stdout: string };
  placeholders: { code: number | null; stdout: string };
  show: { code: number | null; stdout: string };
  units: { code: number | null; stdout: string };
  listed: Record<string, string[] | string>;
  stat: Record<string, string>;
}

/** The attack: list and read everything of the root and the unit directory, and ask systemd about the victim. */
function spyAttack(victimUnit: string, probes: string[]): string {
  return `
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const run = (file, ...args) => { const r = spawnSync(file, args, { encoding: 'utf8', timeout: 30000 }); return { code: r.status, stdout: r.stdout || '' }; };
const list = (dir) => { try { return fs.readdirSync(dir).sort(); } catch (e) { return 'error ' + e.code; } };
const stat = (path) => { try { fs.lstatSync(path); return 'present'; } catch (e) { return 'error ' + e.code; } };
const probes = ${JSON.stringify(probes)};
const view = {
  find: run('find', ${JSON.stringify(ROOT)}, ${JSON.stringify(UNIT_DIR)}),
  placeholders: run('grep', '-r', '-h', '-o', '-s', 'opaque-[A-Za-z0-9._~+/=:-]*', ${JSON.stringify(UNIT_DIR)}, ${JSON.stringify(ROOT)}),
  show: run('systemctl', 'show', '--all', ${JSON.stringify(victimUnit)}),
  units: run('systemctl', 'list-units', '--all', '--no-legend', '--plain'),
  listed: Object.fromEntries(probes.map((p) => [p, list(p)])),
  stat: Object.fromEntries(probes.map((p) => [p, stat(p)])),
};
fs.writeFileSync(process.env.OPENCLAW_STATE_DIR + '/tenant-view.json', JSON.stringify(view));
`;
}

describe('what a tenant can see on a real host', { timeout: 15 * 60_000 }, () => {
  let host: TestHost;
  const victim = owner('view-victim', 'victim');
  const spy = owner('view-spy', 'spy');
  const [victimLayout, spyLayout] = [layoutOf(victim), layoutOf(spy)];
  // The trickiest value the protocol admits: every punctuation character its placeholder pattern allows.
  const SECRET = `opaque-${randomBytes(8).toString('hex')}=/+~:.-Z`;
  let view: TenantView;

  before(async () => {
    host = await startTestHost({ name: 'hview' });
    for (const who of [victim, spy]) await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(victim, 1));
    await ok(host, 'activate-revision', activateArgs(prepareArgs(victim, 1), { OCC_SECRET_REF: SECRET }));
    // An operator-made root may allow listing (root:root 0755 is accepted): the sandbox must hide it anyway.
    await host.run(['chmod', '0755', ROOT]);
    const probes = [
      ROOT,
      spyLayout.dir,
      `${spyLayout.current}/openclaw.json`,
      `${ROOT}/accounts`,
      `${ROOT}/.compute-lock`,
      `${ROOT}/ports.json`,
      `${ROOT}/namespaces`,
      victimLayout.dir,
      victimLayout.served,
      UNIT_DIR,
      victimLayout.unitFile,
      '/run/dbus/system_bus_socket',
    ];
    const openclawPath = await installTenantGateway(host, 'view-spy', spyAttack(victimLayout.unitName, probes));
    const runtime = { openclawPath };
    await ok(host, 'prepare-revision', prepareArgs(spy, 1), { runtime });
    await ok(host, 'activate-revision', activateArgs(prepareArgs(spy, 1), { OCC_SPY_OWN: 'opaque-spy-own' }), { runtime });
    view = JSON.parse(await host.run(['cat', `${spyLayout.state}/tenant-view.json`])) as TenantView;
  });
  after(async () => {
    await host?.exec(['chmod', '0711', ROOT]);
    await host?.down();
  });

  test("a launch placeholder reaches the gateway's environment from a root 0600 file, not from the unit", async () => {
    assert.ok((await gatewayEnviron(host, victim)).includes(`OCC_SECRET_REF=${SECRET}`), 'the gateway receives the placeholder');
    assert.doesNotMatch(await host.run(['cat', victimLayout.unitFile]), /OCC_SECRET_REF|opaque-/);
    assert.equal(await statOf(host, victimLayout.launchEnvFile), 'root:root 600 regular file');
    assert.equal(await host.run(['cat', victimLayout.launchEnvFile]), `# Launch placeholders of beforeWorkloadStart hooks, loaded by systemd as root.\nOCC_SECRET_REF="${SECRET}"\n`);
  });

  test('a sibling account outside any unit finds the placeholder neither in files nor through systemctl show', async () => {
    const asSpy = (argv: string[]) => host.exec(['runuser', '-u', accountOf(spy), '--', ...argv]);
    const grep = await asSpy(['grep', '-r', '-F', '-l', '-s', '--', SECRET, UNIT_DIR, ROOT]);
    assert.equal(grep.stdout, '', 'no file another account can read holds the value');
    // Controls: the same account reads the victim's unit file and its systemd properties.
    const header = await asSpy(['grep', '-r', '-F', '-l', '-s', '--', `X-OCC-Agent-Id=${victim.agent.id}`, UNIT_DIR]);
    assert.equal(header.stdout.trim(), victimLayout.unitFile);
    const show = await asSpy(['systemctl', 'show', '--all', victimLayout.unitName]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`^Id=${victimLayout.unitName}$`, 'm'));
    assert.ok(show.stdout.includes(`EnvironmentFiles=${victimLayout.launchEnvFile} (ignore_errors=no)`), 'only the file name shows');
    assert.ok(!show.stdout.includes(SECRET), 'systemctl show (every property) does not reveal it');
    assert.notEqual((await asSpy(['cat', `/proc/${await mainPid(host, victim)}/environ`])).code, 0, "the victim's process environment is not the sibling's to read");
  });

  test("a sibling's compromised gateway, inside its unit, finds the placeholder neither in files nor through systemctl show", () => {
    assert.ok(!view.placeholders.stdout.includes(SECRET), `grep inside the unit found: ${view.placeholders.stdout}`);
    assert.ok(!view.show.stdout.includes(SECRET), 'systemctl show from inside the unit');
    assert.ok(!JSON.stringify(view).includes(SECRET));
  });

  test('a compromised gateway sees only its own home, state and current snapshot under the root, and neither the unit directory nor the system bus', async () => {
    // Control: outside the unit the same account lists the root, stats the lock and sees every unit.
    const outside = await host.run(['runuser', '-u', accountOf(spy), '--', 'sh', '-c', 'ls -A "$1"; ls "$2"', 'ls', ROOT, UNIT_DIR]);
    for (const name of ['.compute-lock', 'accounts', 'namespaces', 'ports.json', victimLayout.unitName]) assert.ok(outside.split('\n').includes(name), `${name} is visible outside the unit`);
    // The port index names every Agent directory and its port: root's alone, even where the root lists.
    assert.equal(await statOf(host, `${ROOT}/ports.json`), 'root:root 600 regular file');
    const read = await host.exec(['runuser', '-u', accountOf(spy), '--', 'cat', `${ROOT}/ports.json`]);
    assert.notEqual(read.code, 0, 'the sibling account cannot read the port index');
    assert.match(read.stderr, /Permission denied/);

    const own = [spyLayout.home, spyLayout.state, spyLayout.current];
    const ancestors = [ROOT, `${ROOT}/namespaces`, spyLayout.dir.split('/').slice(0, -2).join('/'), spyLayout.dir.split('/').slice(0, -1).join('/'), spyLayout.dir];
    const seen = view.find.stdout.split('\n').filter(Boolean);
    const foreign = seen.filter((path) => path !== UNIT_DIR && !ancestors.includes(path) && !own.some((dir) => path === dir || path.startsWith(`${dir}/`)));
    assert.deepEqual(foreign, [], 'nothing but the path to its own directory, its home, state and snapshot');
    for (const dir of own) assert.ok(seen.includes(dir), `${dir} is still there`);
    assert.equal(view.stat[`${spyLayout.current}/openclaw.json`], 'present', 'the snapshot is at its usual path (its directory is 0711: found by name)');
    assert.deepEqual(view.listed[ROOT], ['namespaces']);
    assert.deepEqual(view.listed[spyLayout.dir], ['current', 'home', 'state']);
    for (const path of [`${ROOT}/accounts`, `${ROOT}/.compute-lock`, `${ROOT}/ports.json`, victimLayout.dir, victimLayout.served]) assert.equal(view.stat[path], 'error ENOENT', path);
    assert.equal(view.listed[UNIT_DIR], 'error EACCES', 'the unit directory is inaccessible');
    assert.equal(view.stat[victimLayout.unitFile], 'error EACCES');
    assert.notEqual(view.units.code, 0, 'systemctl cannot reach the system bus');
    assert.doesNotMatch(view.units.stdout, /openclaw-enterprise-gateway-/);
    assert.notEqual(view.show.code, 0);
  });

  test('a nodePath or openclawPath under the root or the unit directory is refused before anything changes', async () => {
    const who = owner('view-hidden', 'hidden');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    const gateway = `${ROOT}/gateway.cjs`;
    await host.run(['install', '-m', '0755', host.fixtureGatewayPath, gateway]);
    // The helper itself runs on the runtime's nodePath, so that one must exist to be refused.
    await host.run(['install', '-D', '-m', '0755', host.nodePath, `${ROOT}/bin/node`]);
    for (const runtime of [{ openclawPath: gateway }, { openclawPath: `${UNIT_DIR}/gateway.cjs` }, { nodePath: `${ROOT}/bin/node` }]) {
      const error = await fails(host, 'activate-revision', activateArgs(prepareArgs(who, 1)), { runtime });
      assert.equal(error.code, 'configuration', JSON.stringify(runtime));
      assert.match(error.message, /sandbox hides/);
    }
    assert.equal(await exists(host, layoutOf(who).unitFile), false);
    await host.run(['rm', '-r', gateway, `${ROOT}/bin`]);
  });

  test("launch.env's quoting survives systemd's own env-file parser byte for byte", async () => {
    // Beyond what the protocol admits today, so a wider placeholder pattern stays safe to render.
    const values = [
      'back\\slash',
      'dq "inside"',
      'dollar $HOME ${HOME} $(id)',
      'tick `id`',
      'specifier %h %i %%',
      "single 'q'",
      '#hash ;semi',
      '  spaced  ',
      'trailing\\',
      'a=b=c',
      'caf\u00e9 \u2713',
    ];
    const file = '/run/occ-quoting.env';
    await host.run(['install', '-m', '600', '/dev/stdin', file], { input: values.map((value, i) => `${environmentFileLine(`OCC_Q${i}`, value)}\n`).join('') });
    const environ = (await host.run(['systemd-run', '--quiet', '--wait', '--pipe', '-p', `EnvironmentFile=${file}`, '/usr/bin/env', '-0'])).split('\0');
    for (const [i, value] of values.entries())
      assert.ok(environ.includes(`OCC_Q${i}=${value}`), `${JSON.stringify(value)} arrived as ${JSON.stringify(environ.find((entry) => entry.startsWith(`OCC_Q${i}=`)))}`);
    await host.run(['rm', file]);
  });

  test('activation over a unit an earlier helper wrote with Environment= lines moves the placeholder out of it; stop removes launch.env', async () => {
    const who = owner('view-upgrade', 'upgrade');
    const layout = layoutOf(who);
    const args = activateArgs(prepareArgs(who, 1), { OCC_OLD_REF: 'opaque-old-1' });
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    await ok(host, 'activate-revision', args);
    // What an earlier helper left: the placeholder as an Environment= line of the unit, no launch.env.
    const unit = await host.run(['cat', layout.unitFile]);
    const earlier = unit.replace(`EnvironmentFile=${layout.launchEnvFile}\n`, 'Environment="OCC_OLD_REF=opaque-old-1"\n');
    assert.notEqual(earlier, unit);
    await host.run(['tee', layout.unitFile], { input: earlier });
    await host.run(['rm', layout.launchEnvFile]);
    await host.run(['systemctl', 'daemon-reload']);
    await host.run(['systemctl', 'restart', layout.unitName]);
    assert.match((await unitProperty(host, who, 'Environment')).join('\n'), /OCC_OLD_REF=opaque-old-1/, 'control: systemd shows it to anyone');

    const result = await ok(host, 'activate-revision', args);
    assert.equal(result.unitChanged, true);
    assert.equal(await host.run(['cat', layout.unitFile]), unit);
    assert.doesNotMatch((await unitProperty(host, who, 'Environment')).join('\n'), /opaque-/);
    assert.ok((await gatewayEnviron(host, who)).includes('OCC_OLD_REF=opaque-old-1'));

    await ok(host, 'stop-revision', { owner: who, revision: args.revision });
    assert.equal(await unitState(host, who), 'inactive');
    assert.equal(await exists(host, layout.launchEnvFile), false, "the hooks revoked the stopped gateway's placeholders: their file goes");
    assert.equal(await exists(host, layout.unitFile), true);
    await ok(host, 'activate-revision', args);
    assert.ok((await gatewayEnviron(host, who)).includes('OCC_OLD_REF=opaque-old-1'), 'a later activation writes it again');
  });
});
