// Launch-environment placeholders from hooks: bounded, allowlisted names, opaque values.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DRIVER_ENVIRONMENT, isReservedLaunchName, LAUNCH_ENV_VALUE_PATTERN, launchEnvironment, launchEnvironmentProblems, MAX_LAUNCH_ENV_BYTES, MAX_LAUNCH_ENV_ENTRIES } from './launch.js';

const entries = (count: number, value = 'opaque-x'): Record<string, string> => Object.fromEntries(Array.from({ length: count }, (_, i) => [`OCC_REF_${i}`, value]));

describe('launchEnvironmentProblems', () => {
  it('accepts an empty environment and opaque placeholders', () => {
    assert.deepEqual(launchEnvironmentProblems({}), []);
    assert.deepEqual(launchEnvironmentProblems({ OCC_IAM_TOKEN_REF: 'opaque-iam/ref:42', OCC_CONFIG_BINDING: 'opaque-cfg.binding=abc', _X: 'opaque-a~b+c' }), []);
    assert.equal(launchEnvironment.safeParse({ OCC_REF: 'opaque-1' }).success, true);
  });

  it('refuses names that are not upper-case environment names', () => {
    for (const name of ['lower', 'Mixed', '1ABC', 'A-B', 'A.B', 'A B', 'A=B', '', `A${'B'.repeat(128)}`, 'X\nY', '\u00c4']) {
      const problems = launchEnvironmentProblems({ [name]: 'opaque-x' });
      assert.equal(problems.length, 1, JSON.stringify(name));
      assert.match(problems[0] ?? '', /not a valid environment variable name/);
    }
  });

  it('refuses every driver-owned name', () => {
    assert.deepEqual([...DRIVER_ENVIRONMENT], ['HOME', 'OPENCLAW_STATE_DIR', 'OPENCLAW_CONFIG_PATH', 'OPENCLAW_GATEWAY_PORT', 'OPENCLAW_GATEWAY_PASSWORD']);
    for (const name of DRIVER_ENVIRONMENT) {
      assert.deepEqual(launchEnvironmentProblems({ [name]: 'opaque-x' }), [`${name}: set by the driver itself`]);
    }
  });

  it('refuses every name the driver, OpenClaw, the loader or systemd owns', () => {
    const reserved = [
      'OPENCLAW_LOG_LEVEL',
      'OPENCLAW_HOME',
      'OPENCLAW_ANYTHING',
      'NODE_OPTIONS',
      'NODE_COMPILE_CACHE',
      'NODE_PATH',
      'NODE_EXTRA_CA_CERTS',
      'LD_PRELOAD',
      'LD_LIBRARY_PATH',
      'DYLD_INSERT_LIBRARIES',
      'PATH',
      'TMPDIR',
      'XDG_CONFIG_HOME',
      'XDG_RUNTIME_DIR',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'BASH_ENV',
      'ENV',
      'SYSTEMD_EXEC_PID',
      'LISTEN_FDS',
      'LISTEN_PID',
      'NOTIFY_SOCKET',
      'INVOCATION_ID',
      'WATCHDOG_USEC',
      'MAINPID',
      'MANAGERPID',
      'JOURNAL_STREAM',
      'CREDENTIALS_DIRECTORY',
      'RUNTIME_DIRECTORY',
      'STATE_DIRECTORY',
      'USER',
      'LOGNAME',
      'SHELL',
      'LANG',
      'LC_ALL',
      'MEMORY_PRESSURE_WATCH',
      'TRIGGER_UNIT',
      'MONITOR_SERVICE_RESULT',
      'EXIT_STATUS',
      'SERVICE_RESULT',
    ];
    for (const name of reserved) {
      assert.equal(isReservedLaunchName(name), true, name);
      assert.deepEqual(launchEnvironmentProblems({ [name]: 'opaque-x' }), [`${name}: reserved for the driver, OpenClaw, the loader or systemd`], name);
    }
    for (const name of ['PATHNAME_REF', 'HOMEDIR_REF', 'ENVIRONMENT_REF', 'OCC_IAM_TOKEN_REF', 'OPENCLAWX', 'NODEX', 'USERNAME_REF', 'OTELX']) {
      assert.deepEqual(launchEnvironmentProblems({ [name]: 'opaque-x' }), [], `${name}: only the reserved names and prefixes, not every look-alike`);
    }
  });

  it('refuses values that are not opaque placeholders', () => {
    for (const value of [
      '',
      'plain',
      'opaque-',
      'Opaque-x',
      ' opaque-x',
      'opaque-x ',
      'opaque-a b',
      'opaque-"x"',
      "opaque-'x'",
      'opaque-$HOME',
      'opaque-%h',
      'opaque-x\n',
      'opaque-x;id',
      'opaque-\u00e9',
      'sk-proj-0123456789',
      `opaque-${'x'.repeat(501)}`,
    ]) {
      const problems = launchEnvironmentProblems({ OCC_REF: value });
      assert.deepEqual(problems, ['OCC_REF: value must be an opaque placeholder (opaque-<token>)'], JSON.stringify(value));
    }
    assert.match(`opaque-${'x'.repeat(500)}`, LAUNCH_ENV_VALUE_PATTERN);
  });

  it('refuses non-string values', () => {
    for (const value of [1, true, null, undefined, {}, ['opaque-x']]) {
      assert.deepEqual(launchEnvironmentProblems({ OCC_REF: value }), ['OCC_REF: value must be a string'], String(value));
    }
    assert.equal(launchEnvironment.safeParse({ OCC_REF: 1 }).success, false);
  });

  it("allows exactly OCC's 64 entries and refuses one more", () => {
    assert.equal(MAX_LAUNCH_ENV_ENTRIES, 64);
    assert.deepEqual(launchEnvironmentProblems(entries(MAX_LAUNCH_ENV_ENTRIES)), []);
    const problems = launchEnvironmentProblems(entries(MAX_LAUNCH_ENV_ENTRIES + 1));
    assert.deepEqual(problems, ['at most 64 variables are allowed, got 65']);
  });

  it('allows exactly MAX_LAUNCH_ENV_BYTES and refuses one byte more', () => {
    assert.equal(MAX_LAUNCH_ENV_BYTES, 8192);
    // 16 entries of name `OCC_REF_<i>` plus a value sized to land exactly on the bound.
    const names = Array.from({ length: 16 }, (_, i) => `OCC_REF_${String(i).padStart(2, '0')}`); // 10 bytes each
    const valueBytes = MAX_LAUNCH_ENV_BYTES / 16 - 10; // 502 = 'opaque-' + 495
    const exact = Object.fromEntries(names.map((name) => [name, `opaque-${'v'.repeat(valueBytes - 7)}`]));
    assert.deepEqual(launchEnvironmentProblems(exact), []);
    const lastName = names.at(-1) ?? '';
    const over = { ...exact, [lastName]: `opaque-${'v'.repeat(valueBytes - 6)}` };
    assert.deepEqual(launchEnvironmentProblems(over), [`at most ${MAX_LAUNCH_ENV_BYTES} bytes are allowed, got ${MAX_LAUNCH_ENV_BYTES + 1}`]);
  });

  it('reports every problem, not only the first', () => {
    const problems = launchEnvironmentProblems({ HOME: 'opaque-x', lower: 'opaque-x', OCC_REF: 'secret' });
    assert.equal(problems.length, 3);
    assert.equal(launchEnvironment.safeParse({ HOME: 'opaque-x', OCC_REF: 'secret' }).error?.issues.length, 2);
  });

  it('refuses a long invalid name without echoing all of it', () => {
    const name = `bad${'x'.repeat(200)}`;
    const [problem] = launchEnvironmentProblems({ [name]: 'opaque-x' });
    assert.ok((problem ?? '').length < 100);
  });
});
