// The operation table: every operation's examples parse, and its schemas refuse keys they do not know.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { envelope, makeEnvelope, parseEnvelope } from './envelope.js';
import {
  PLANNED_OPERATIONS,
  MAX_DOCUMENT_BYTES,
  MAX_READINESS_TIMEOUT_MS,
  MUTATING_OPERATIONS,
  OPERATION_EXAMPLES,
  OPERATION_NAMES,
  OPERATIONS,
  exampleArgs,
  exampleResult,
} from './operations/index.js';
import type { RuntimeSettings } from './runtime.js';
import { PROTOCOL_VERSION } from './version.js';
import { EXAMPLE_RUNTIME } from './operations/examples.js';
import { lazyOperation } from './operations/define.js';
import * as z from 'zod/mini';

const owner = exampleArgs('verify-revision').owner;
const revision = exampleArgs('verify-revision').revision;
const documentHash = exampleArgs('prepare-revision').configuration.hash;

const RUNTIME: RuntimeSettings = EXAMPLE_RUNTIME;

/** Sets every leaf of a JSON value to the same string, in place. */
function overwrite(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (record[key] !== null && typeof record[key] === 'object') overwrite(record[key]);
    else record[key] = 'changed';
  }
}

describe('operation table', () => {
  it('lists exactly the nine wire operations of the contract, setup-workspace and the read-only inventory, read-logs, describe-runtime, diagnose-deployment and plan-operation', () => {
    assert.deepEqual([...OPERATION_NAMES].sort(), [
      'activate-revision',
      'delete-agent',
      'delete-namespace',
      'describe-runtime',
      'diagnose-deployment',
      'ensure-namespace',
      'inventory',
      'plan-operation',
      'prepare-revision',
      'probe',
      'read-logs',
      'retire-revision',
      'setup-workspace',
      'stop-revision',
      'verify-revision',
    ]);
  });

  it("only probe, verify-revision, inventory, read-logs, describe-runtime, diagnose-deployment and plan-operation are read-only; the mutating set is the rest, in the order of an Agent's life", () => {
    const readOnly = OPERATION_NAMES.filter((name) => !OPERATIONS[name].mutates).sort();
    assert.deepEqual(readOnly, ['describe-runtime', 'diagnose-deployment', 'inventory', 'plan-operation', 'probe', 'read-logs', 'verify-revision']);
    // Every change can be planned, with the real call's own arguments.
    assert.deepEqual(PLANNED_OPERATIONS, MUTATING_OPERATIONS);
    assert.deepEqual(MUTATING_OPERATIONS, ['ensure-namespace', 'prepare-revision', 'setup-workspace', 'activate-revision', 'stop-revision', 'retire-revision', 'delete-agent', 'delete-namespace']);
  });

  for (const name of OPERATION_NAMES) {
    it(`${name}: its example result parses as its result, and the examples are copies`, () => {
      const result = OPERATIONS[name].result.safeParse(exampleResult(name));
      assert.equal(result.success, true, JSON.stringify(result.error?.issues));
      assert.deepEqual(result.data, OPERATION_EXAMPLES[name]().result);
      // Deep copies: overwriting every value of one, however nested, leaves the next as it was.
      const [args, resultValue] = [JSON.stringify(exampleArgs(name)), JSON.stringify(exampleResult(name))];
      overwrite(exampleArgs(name));
      overwrite(exampleResult(name));
      assert.equal(JSON.stringify(exampleArgs(name)), args);
      assert.equal(JSON.stringify(exampleResult(name)), resultValue);
    });
  }

  it('the example configuration carries the SHA-256 of its document, as the helper checks', () => {
    const { document, hash } = exampleArgs('prepare-revision').configuration;
    assert.equal(createHash('sha256').update(document).digest('hex'), hash);
    assert.equal(exampleArgs('activate-revision').configurationHash, hash);
  });

  it('refuses an example result with an unknown key', () => {
    for (const name of OPERATION_NAMES) {
      assert.equal(OPERATIONS[name].result.safeParse({ ...exampleResult(name), extra: 1 }).success, false, name);
    }
  });
});

describe('schemas built on first use', () => {
  it('an operation defined lazily builds its schemas once, at the first read of either', () => {
    let builds = 0;
    const definition = lazyOperation(false, () => {
      builds += 1;
      return { args: z.strictObject({ n: z.int() }), result: z.boolean() };
    });
    assert.equal(builds, 0);
    assert.equal(definition.result.safeParse(true).success, true);
    assert.equal(definition.args.safeParse({ n: 1.5 }).success, false);
    assert.equal(builds, 1);
  });

  it('every operation of the table builds its schemas on first use, so a helper call builds only its own', () => {
    const lazy = OPERATION_NAMES.filter((name) => typeof Object.getOwnPropertyDescriptor(OPERATIONS[name], 'args')?.get === 'function');
    assert.deepEqual(lazy, OPERATION_NAMES);
  });

  it('parseEnvelope answers as the whole union: for a valid envelope, bad arguments, and an unknown operation', () => {
    const probe = makeEnvelope({ operation: 'probe', args: {}, runtime: RUNTIME, configurationHash: 'a'.repeat(64), requestId: 'r-1' });
    const badPrepare = {
      ...makeEnvelope({ operation: 'prepare-revision', args: exampleArgs('prepare-revision'), runtime: RUNTIME, configurationHash: 'a'.repeat(64), requestId: 'r-2' }),
      args: { harness: 'other' },
    };
    for (const value of [probe, badPrepare, { ...probe, operation: 'constructor' }, null, 'probe']) {
      const own = parseEnvelope(value);
      const whole = envelope.safeParse(value);
      assert.equal(own.success, whole.success);
      assert.deepEqual(own.error?.issues, whole.error?.issues);
    }
    assert.equal(parseEnvelope(probe).success, true);
    assert.deepEqual(
      parseEnvelope({ ...probe, operation: 'constructor' }).error?.issues.map((issue) => [issue.code, issue.path]),
      [['invalid_union', ['operation']]],
    );
  });
});

describe('operation argument schemas', () => {
  for (const name of OPERATION_NAMES) {
    describe(name, () => {
      const schema = OPERATIONS[name].args;
      const example = exampleArgs(name) as Record<string, unknown>;

      it('accepts its example', () => {
        const parsed = schema.safeParse(example);
        assert.equal(parsed.success, true, JSON.stringify(parsed.error?.issues));
        assert.deepEqual(parsed.data, example);
      });

      it('refuses an unknown top-level key', () => {
        assert.equal(schema.safeParse({ ...example, extra: 1 }).success, false);
      });

      it('is accepted inside an envelope and refused with an unknown envelope key', () => {
        const value = makeEnvelope({ operation: name, args: exampleArgs(name), runtime: RUNTIME, configurationHash: 'a'.repeat(64), requestId: 'req-1' });
        assert.equal(envelope.safeParse(value).success, true);
        assert.equal(envelope.safeParse({ ...value, debug: true }).success, false);
        assert.equal(envelope.safeParse({ ...value, runtime: { ...RUNTIME, sudo: true } }).success, false);
      });
    });
  }

  it('refuses unknown keys in nested identities', () => {
    const prepare = OPERATIONS['prepare-revision'].args;
    const base = exampleArgs('prepare-revision');
    assert.equal(prepare.safeParse({ ...base, owner: { ...owner, extra: 1 } }).success, false);
    assert.equal(prepare.safeParse({ ...base, owner: { ...owner, agent: { id: 'agent-7f3a', name: 'x' } } }).success, false);
    assert.equal(prepare.safeParse({ ...base, revision: { ...revision, hash: 'x' } }).success, false);
    assert.equal(prepare.safeParse({ ...base, configuration: { ...base.configuration, secret: 'x' } }).success, false);
    const ensure = OPERATIONS['ensure-namespace'].args;
    assert.equal(ensure.safeParse({ namespace: { id: 'ns-1', name: 'team-a', labels: {} } }).success, false);
  });

  it('refuses a missing required field', () => {
    for (const name of OPERATION_NAMES) {
      const example = exampleArgs(name) as Record<string, unknown>;
      for (const key of Object.keys(example)) {
        const { [key]: _dropped, ...rest } = example;
        assert.equal(OPERATIONS[name].args.safeParse(rest).success, false, `${name} without ${key}`);
      }
    }
  });

  it('prepare-revision accepts only openclaw/embedded and known auth modes', () => {
    const prepare = OPERATIONS['prepare-revision'].args;
    const base = exampleArgs('prepare-revision');
    assert.equal(prepare.safeParse({ ...base, harness: 'openclaw/dedicated' }).success, false);
    assert.equal(prepare.safeParse({ ...base, harness: 'codex' }).success, false);
    assert.equal(prepare.safeParse({ ...base, configuration: { ...base.configuration, auth: 'token' } }).success, false);
    for (const auth of ['password', 'trusted-proxy', 'trusted-proxy-password'] as const) {
      assert.equal(prepare.safeParse({ ...base, configuration: { ...base.configuration, auth } }).success, true, auth);
    }
  });

  it('prepare-revision bounds the document at MAX_DOCUMENT_BYTES (UTF-8 bytes)', () => {
    const prepare = OPERATIONS['prepare-revision'].args;
    const base = exampleArgs('prepare-revision');
    const at = 'x'.repeat(MAX_DOCUMENT_BYTES);
    const over = `${'x'.repeat(MAX_DOCUMENT_BYTES - 1)}\u00e9`; // one more byte, same length in characters
    assert.equal(prepare.safeParse({ ...base, configuration: { ...base.configuration, document: at } }).success, true);
    assert.equal(prepare.safeParse({ ...base, configuration: { ...base.configuration, document: over } }).success, false);
  });

  it('revision numbers start at 1; hashes are lower-case SHA-256 hex', () => {
    const verify = OPERATIONS['verify-revision'].args;
    assert.equal(verify.safeParse({ owner, revision: { id: 'rev-1', number: 0 } }).success, false);
    assert.equal(verify.safeParse({ owner, revision: { id: 'rev-1', number: 1.5 } }).success, false);
    const activate = OPERATIONS['activate-revision'].args;
    const base = exampleArgs('activate-revision');
    assert.equal(activate.safeParse({ ...base, configurationHash: documentHash.toUpperCase() }).success, false);
    assert.equal(activate.safeParse({ ...base, configurationHash: documentHash.slice(1) }).success, false);
  });

  it('activate-revision bounds readiness at 120 seconds and checks the launch environment', () => {
    const activate = OPERATIONS['activate-revision'].args;
    const base = exampleArgs('activate-revision');
    assert.equal(MAX_READINESS_TIMEOUT_MS, 120_000);
    assert.equal(activate.safeParse({ ...base, readinessTimeoutMs: 120_001 }).success, false);
    assert.equal(activate.safeParse({ ...base, readinessTimeoutMs: 999 }).success, false);
    assert.equal(activate.safeParse({ ...base, launchEnvironment: { HOME: 'opaque-x' } }).success, false);
    assert.equal(activate.safeParse({ ...base, launchEnvironment: { OCC_REF: 'secret' } }).success, false);
    assert.equal(activate.safeParse({ ...base, launchEnvironment: {} }).success, true);
  });

  it('envelope: protocol version, request ID and runtime settings are checked', () => {
    const value = makeEnvelope({ operation: 'probe', args: {}, runtime: RUNTIME, configurationHash: 'a'.repeat(64), requestId: 'req-1' });
    assert.equal(value.protocolVersion, PROTOCOL_VERSION);
    assert.equal(envelope.safeParse({ ...value, protocolVersion: PROTOCOL_VERSION + 1 }).success, false);
    assert.equal(envelope.safeParse({ ...value, requestId: 'req 1' }).success, false);
    assert.equal(envelope.safeParse({ ...value, requestId: 'r'.repeat(65) }).success, false);
    assert.equal(envelope.safeParse({ ...value, runtime: { ...RUNTIME, user: 'root' } }).success, false);
    assert.equal(envelope.safeParse({ ...value, runtime: { ...RUNTIME, nodePath: '/usr/bin/node;id' } }).success, false);
    assert.equal(envelope.safeParse({ ...value, runtime: { ...RUNTIME, gatewayPortRange: { start: 18900, end: 18800 } } }).success, false);
    assert.equal(envelope.safeParse({ ...value, runtime: { ...RUNTIME, systemdUnitDirectory: `${RUNTIME.root}/units` } }).success, false);
    assert.equal(envelope.safeParse({ ...value, operation: 'shell' }).success, false);
    assert.equal(envelope.safeParse({ ...value, operation: 'prepare-revision' }).success, false, 'probe args under another operation');
  });
});
