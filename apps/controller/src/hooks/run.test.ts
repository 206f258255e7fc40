// Running lifecycle hooks: order, bounded launch environments, compensation, bounds and sanitized failures.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { NAMESPACE, hookOwner, recordingOwner, rejection, revisionFor, settle } from '../../test/fakes.js';
import type { LifecycleDriver } from '../types.js';
import { HOOK_TIMEOUT_MS, compensate, runNamespaceHooks, runStartHooks, runStopHooks } from './run.js';

const SECRET = 'sk-secret-123';
const PLACEHOLDER = 'opaque-placeholder-999';

function assertSanitized(error: ComputeError, ...secrets: string[]): void {
  const surfaced = `${error.message}\n${JSON.stringify(error.details)}`;
  for (const secret of [SECRET, PLACEHOLDER, ...secrets]) assert.ok(!surfaced.includes(secret), `"${secret}" surfaced in: ${surfaced}`);
}

/** An owner whose `phase` hook never settles on its own but rejects when its signal aborts. */
function hangingOwner(id: string, log: string[], seen: AbortSignal[] = []): LifecycleDriver {
  const hang = (label: string) => (signal: AbortSignal) => {
    log.push(`${label}:${id}`);
    seen.push(signal);
    return new Promise<void>(() => undefined);
  };
  return {
    id,
    capability: 'iam',
    implementation: 'test/hooks',
    computeLifecycleHooks: {
      beforeWorkloadStart: (_revision, _launch, signal) => hang('beforeWorkloadStart')(signal),
      beforeWorkloadStop: (_revision, signal) => hang('beforeWorkloadStop')(signal),
      beforeNamespaceDelete: (_namespace, signal) => hang('beforeNamespaceDelete')(signal),
    },
  };
}

describe('runStartHooks', () => {
  it('runs in registration order, skipping owners without the hook, and merges environments', async () => {
    const log: string[] = [];
    const owners = [
      recordingOwner('cfg', log, { environment: { CFG_TOKEN: 'opaque-cfg.1' } }),
      recordingOwner('none', log, { omit: ['beforeWorkloadStart'] }),
      recordingOwner('iam', log, { capability: 'iam', environment: { IAM_TOKEN: 'opaque-iam:2', IAM_ISSUER: 'opaque-issuer' } }),
    ];
    const started = await runStartHooks(owners, revisionFor());
    assert.deepEqual(log, ['beforeWorkloadStart:cfg', 'beforeWorkloadStart:iam']);
    assert.deepEqual(started.environment, { CFG_TOKEN: 'opaque-cfg.1', IAM_TOKEN: 'opaque-iam:2', IAM_ISSUER: 'opaque-issuer' });
    assert.deepEqual(
      started.started.map((owner) => owner.id),
      ['cfg', 'iam'],
    );
  });

  it('gives each hook its own copy of the revision and a fresh launch environment', async () => {
    const revision = revisionFor();
    const before = structuredClone(revision);
    const seen: Record<string, string>[] = [];
    const owner = (id: string): LifecycleDriver => ({
      id,
      capability: 'configuration',
      implementation: 'test/hooks',
      computeLifecycleHooks: {
        async beforeWorkloadStart(copy, launch) {
          seen.push({ ...launch.environment });
          (copy as { id: string }).id = 'tampered';
          launch.environment[`${id.toUpperCase()}_X`] = 'opaque-x';
        },
      },
    });
    await runStartHooks([owner('a'), owner('b')], revision);
    assert.deepEqual(revision, before);
    assert.deepEqual(seen, [{}, {}]);
  });

  it('returns an empty environment with no owners', async () => {
    assert.deepEqual(await runStartHooks([], revisionFor()), { environment: {}, started: [] });
  });

  it('refuses invalid names, non-opaque values, driver-owned and loader names', async () => {
    const refused: Record<string, string>[] = [
      { lower_case: 'opaque-a' },
      { '1ABC': 'opaque-a' },
      { 'A-B': 'opaque-a' },
      { GOOD: 'plain-value' },
      { GOOD: 'opaque-' },
      { GOOD: 'opaque-has space' },
      { GOOD: `opaque-${'x'.repeat(501)}` },
      { HOME: 'opaque-home' },
      { OPENCLAW_GATEWAY_PASSWORD: 'opaque-pw' },
      { OPENCLAW_STATE_DIR: 'opaque-dir' },
      { LD_PRELOAD: 'opaque-lib' },
      { NODE_OPTIONS: 'opaque-opt' },
      { PATH: 'opaque-path' },
    ];
    for (const environment of refused) {
      const log: string[] = [];
      const error = await rejection(runStartHooks([recordingOwner('cfg', log, { environment })], revisionFor()));
      assert.equal(error.code, 'configuration', JSON.stringify(environment));
      assert.equal(error.failure, 'permanent');
      assert.match(error.message, /"cfg"/);
      // 'opaque-' alone is part of the rule's own wording; every other value must stay out.
      for (const value of Object.values(environment).filter((value) => value !== 'opaque-')) assert.ok(!error.message.includes(value), `value surfaced: ${error.message}`);
    }
  });

  it('refuses a non-map launch environment', async () => {
    const owner = hookOwner('cfg', 'configuration', {
      async beforeWorkloadStart(_revision, launch) {
        (launch as { environment: unknown }).environment = ['opaque-a'];
      },
    });
    assert.equal((await rejection(runStartHooks([owner], revisionFor()))).code, 'configuration');
  });

  it('refuses a name two owners both set', async () => {
    const log: string[] = [];
    const owners = [recordingOwner('cfg', log, { environment: { SHARED: 'opaque-one' } }), recordingOwner('iam', log, { environment: { SHARED: 'opaque-two' } })];
    const error = await rejection(runStartHooks(owners, revisionFor()));
    assert.equal(error.code, 'configuration');
    assert.match(error.message, /SHARED is set by two lifecycle drivers/);
    assert.ok(!error.message.includes('opaque-one') && !error.message.includes('opaque-two'));
    assert.deepEqual(log, ['beforeWorkloadStart:cfg', 'beforeWorkloadStart:iam', 'beforeWorkloadStop:iam', 'beforeWorkloadStop:cfg']);
  });

  it('refuses the merged environment above the protocol bound', async () => {
    const log: string[] = [];
    const many = (prefix: string, count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}_${i}`, 'opaque-v']));
    const fits = await runStartHooks([recordingOwner('cfg', [], { environment: many('CFG', 32) }), recordingOwner('iam', [], { environment: many('IAM', 32) })], revisionFor());
    assert.equal(Object.keys(fits.environment).length, 64, "OCC's bound of 64 entries is admitted");
    const error = await rejection(runStartHooks([recordingOwner('cfg', log, { environment: many('CFG', 32) }), recordingOwner('iam', log, { environment: many('IAM', 33) })], revisionFor()));
    assert.equal(error.code, 'configuration');
    assert.match(error.message, /at most 64 variables/);
    assert.deepEqual(log, ['beforeWorkloadStart:cfg', 'beforeWorkloadStart:iam', 'beforeWorkloadStop:iam', 'beforeWorkloadStop:cfg']);
  });

  it('does not echo an invalid variable name, which may itself be a credential', async () => {
    const log: string[] = [];
    const error = await rejection(runStartHooks([recordingOwner('cfg', log, { environment: { [SECRET]: 'opaque-a' } })], revisionFor()));
    assert.equal(error.code, 'configuration');
    assertSanitized(error);
  });

  it('on a hook failure compensates the completed hooks in reverse, not the failed one, and stops', async () => {
    const log: string[] = [];
    const owners = [
      recordingOwner('a', log, { environment: { A_X: 'opaque-a' } }),
      recordingOwner('b', log, { omit: ['beforeWorkloadStop'] }),
      recordingOwner('c', log),
      recordingOwner('d', log, { fail: ['beforeWorkloadStart'] }),
      recordingOwner('e', log),
    ];
    const error = await rejection(runStartHooks(owners, revisionFor()));
    assert.deepEqual(log, ['beforeWorkloadStart:a', 'beforeWorkloadStart:b', 'beforeWorkloadStart:c', 'beforeWorkloadStart:d', 'beforeWorkloadStop:c', 'beforeWorkloadStop:a']);
    assert.equal(error.code, 'hook');
    assert.equal(error.failure, 'retryable');
    assert.equal(error.message, 'beforeWorkloadStart hook of lifecycle driver "d" failed');
    assert.deepEqual(error.details, { operation: 'beforeWorkloadStart' });
  });

  it('refuses names OpenClaw, the loader or systemd own, and compensates every started hook in reverse', async () => {
    for (const name of [
      'OPENCLAW_LOG_LEVEL',
      'OPENCLAW_PROFILE',
      'NODE_EXTRA_CA_CERTS',
      'DYLD_INSERT_LIBRARIES',
      'TMPDIR',
      'XDG_CONFIG_HOME',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'BASH_ENV',
      'ENV',
      'CREDENTIALS_DIRECTORY',
      'WATCHDOG_USEC',
    ]) {
      const log: string[] = [];
      const owners = [
        recordingOwner('cfg', log, { environment: { CFG_REF: 'opaque-c' } }),
        recordingOwner('iam', log, { capability: 'iam', environment: { [name]: 'opaque-v' } }),
        recordingOwner('late', log),
      ];
      const error = await rejection(runStartHooks(owners, revisionFor()));
      assert.equal(error.code, 'configuration', name);
      assert.equal(error.failure, 'permanent');
      assert.match(error.message, new RegExp(`"iam" refused: ${name}: reserved`));
      assert.deepEqual(log, ['beforeWorkloadStart:cfg', 'beforeWorkloadStart:iam', 'beforeWorkloadStop:iam', 'beforeWorkloadStop:cfg'], name);
    }
  });

  it('compensates an owner whose start completed but whose environment was refused', async () => {
    const log: string[] = [];
    const owners = [recordingOwner('a', log), recordingOwner('b', log, { environment: { HOME: 'opaque-h' } })];
    await rejection(runStartHooks(owners, revisionFor()));
    assert.deepEqual(log, ['beforeWorkloadStart:a', 'beforeWorkloadStart:b', 'beforeWorkloadStop:b', 'beforeWorkloadStop:a']);
  });

  it('keeps compensating after a compensation failure and surfaces the original cause', async () => {
    const log: string[] = [];
    const owners = [recordingOwner('a', log), recordingOwner('b', log, { fail: ['beforeWorkloadStop'] }), recordingOwner('c', log, { fail: ['beforeWorkloadStart'] })];
    const error = await rejection(runStartHooks(owners, revisionFor()));
    assert.match(error.message, /"c" failed/);
    assert.deepEqual(log.slice(-2), ['beforeWorkloadStop:b', 'beforeWorkloadStop:a']);
  });

  it('sanitizes whatever a hook throws', async () => {
    const thrown: unknown[] = [
      new Error(`upstream said ${SECRET}`),
      new Error(`placeholder ${PLACEHOLDER} rejected at https://iam.internal.example/token`),
      new ComputeError('ownership', `ownership of ${SECRET}`, { path: `/secrets/${SECRET}` }),
      SECRET,
      { message: PLACEHOLDER },
    ];
    for (const error of thrown) {
      const log: string[] = [];
      const surfaced = await rejection(runStartHooks([recordingOwner('iam', log, { fail: ['beforeWorkloadStart'], error })], revisionFor()));
      assert.equal(surfaced.code, 'hook');
      assertSanitized(surfaced, 'iam.internal.example');
    }
  });

  it('treats a hook that throws synchronously like one that rejects', async () => {
    const owner = {
      id: 'sync',
      capability: 'configuration',
      implementation: 'test/hooks',
      computeLifecycleHooks: {
        beforeWorkloadStart() {
          throw new Error(SECRET);
        },
      },
    } as unknown as LifecycleDriver;
    const error = await rejection(runStartHooks([owner], revisionFor()));
    assert.equal(error.code, 'hook');
    assertSanitized(error);
  });

  it(`times out a hook that never settles after HOOK_TIMEOUT_MS (${HOOK_TIMEOUT_MS} ms) and compensates`, async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const log: string[] = [];
      const seen: AbortSignal[] = [];
      const pending = runStartHooks([recordingOwner('a', log), hangingOwner('slow', log, seen)], revisionFor());
      const outcome = rejection(pending);
      await settle();
      assert.deepEqual(log, ['beforeWorkloadStart:a', 'beforeWorkloadStart:slow']);
      mock.timers.tick(HOOK_TIMEOUT_MS - 1);
      await settle();
      assert.equal(seen[0]?.aborted, false);
      mock.timers.tick(1);
      const error = await outcome;
      assert.equal(error.code, 'hook');
      assert.equal(error.failure, 'retryable');
      assert.equal(error.message, 'beforeWorkloadStart hook of lifecycle driver "slow" timed out');
      assert.equal(seen[0]?.aborted, true, 'the hook is told to stop');
      assert.deepEqual(log, ['beforeWorkloadStart:a', 'beforeWorkloadStart:slow', 'beforeWorkloadStop:a']);
    } finally {
      mock.timers.reset();
    }
  });

  it('cancels a running hook when the caller aborts, and compensates', async () => {
    const log: string[] = [];
    const seen: AbortSignal[] = [];
    const controller = new AbortController();
    const outcome = rejection(runStartHooks([recordingOwner('a', log), hangingOwner('slow', log, seen)], revisionFor(), controller.signal));
    await settle();
    controller.abort(new Error(SECRET));
    const error = await outcome;
    assert.equal(error.code, 'cancelled');
    assert.equal(error.failure, 'retryable');
    assert.equal(seen[0]?.aborted, true);
    assertSanitized(error);
    assert.deepEqual(log, ['beforeWorkloadStart:a', 'beforeWorkloadStart:slow', 'beforeWorkloadStop:a']);
  });

  it('honours a signal that was already aborted before the hooks began', async () => {
    const log: string[] = [];
    const seen: AbortSignal[] = [];
    const owner: LifecycleDriver = {
      id: 'cfg',
      capability: 'configuration',
      implementation: 'test/hooks',
      computeLifecycleHooks: {
        async beforeWorkloadStart(_revision, _launch, signal) {
          log.push('beforeWorkloadStart:cfg');
          seen.push(signal);
        },
      },
    };
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(runStartHooks([owner], revisionFor(), controller.signal));
    assert.equal(error.code, 'cancelled');
    assert.ok(
      seen.every((signal) => signal.aborted),
      'a hook that ran was not told it was cancelled',
    );
  });
});

describe('runStopHooks', () => {
  it('runs in reverse registration order', async () => {
    const log: string[] = [];
    await runStopHooks([recordingOwner('a', log), recordingOwner('b', log, { omit: ['beforeWorkloadStop'] }), recordingOwner('c', log)], revisionFor());
    assert.deepEqual(log, ['beforeWorkloadStop:c', 'beforeWorkloadStop:a']);
  });

  it('runs every hook even if some fail, then surfaces the first failure sanitized', async () => {
    const log: string[] = [];
    const owners = [recordingOwner('a', log), recordingOwner('b', log, { fail: ['beforeWorkloadStop'] }), recordingOwner('c', log, { fail: ['beforeWorkloadStop'] }), recordingOwner('d', log)];
    const error = await rejection(runStopHooks(owners, revisionFor()));
    assert.deepEqual(log, ['beforeWorkloadStop:d', 'beforeWorkloadStop:c', 'beforeWorkloadStop:b', 'beforeWorkloadStop:a']);
    assert.equal(error.code, 'hook');
    assert.equal(error.message, 'beforeWorkloadStop hook of lifecycle driver "c" failed');
    assertSanitized(error);
  });

  it('compensate never throws', async () => {
    const log: string[] = [];
    await compensate([recordingOwner('a', log, { fail: ['beforeWorkloadStop'] }), recordingOwner('b', log)], revisionFor());
    assert.deepEqual(log, ['beforeWorkloadStop:b', 'beforeWorkloadStop:a']);
  });
});

describe('runNamespaceHooks', () => {
  const owners = (log: string[], options: Parameters<typeof recordingOwner>[2] = {}) => [recordingOwner('a', log), recordingOwner('b', log, options), recordingOwner('c', log)];

  it('runs afterNamespacePrepared in registration order', async () => {
    const log: string[] = [];
    await runNamespaceHooks(owners(log), 'afterNamespacePrepared', NAMESPACE);
    assert.deepEqual(log, ['afterNamespacePrepared:a', 'afterNamespacePrepared:b', 'afterNamespacePrepared:c']);
  });

  it('runs beforeNamespaceDelete in reverse order', async () => {
    const log: string[] = [];
    await runNamespaceHooks(owners(log), 'beforeNamespaceDelete', NAMESPACE);
    assert.deepEqual(log, ['beforeNamespaceDelete:c', 'beforeNamespaceDelete:b', 'beforeNamespaceDelete:a']);
  });

  it('stops at a failing hook with a sanitized hook error and compensates the owner that completed', async () => {
    const log: string[] = [];
    const error = await rejection(runNamespaceHooks(owners(log, { fail: ['afterNamespacePrepared'] }), 'afterNamespacePrepared', NAMESPACE));
    assert.deepEqual(log, ['afterNamespacePrepared:a', 'afterNamespacePrepared:b', 'beforeNamespaceDelete:a']);
    assert.equal(error.code, 'hook');
    assert.equal(error.message, 'afterNamespacePrepared hook of lifecycle driver "b" failed');
    assertSanitized(error);
  });

  it('compensates completed afterNamespacePrepared owners with beforeNamespaceDelete in reverse, never the failed or later ones', async () => {
    const log: string[] = [];
    const chain = [
      recordingOwner('a', log),
      recordingOwner('b', log, { omit: ['beforeNamespaceDelete'] }),
      recordingOwner('c', log, { omit: ['afterNamespacePrepared'] }),
      recordingOwner('d', log, { fail: ['beforeNamespaceDelete'] }),
      recordingOwner('e', log),
      recordingOwner('f', log, { fail: ['afterNamespacePrepared'] }),
      recordingOwner('g', log),
    ];
    const error = await rejection(runNamespaceHooks(chain, 'afterNamespacePrepared', NAMESPACE));
    assert.deepEqual(log, [
      'afterNamespacePrepared:a',
      'afterNamespacePrepared:b',
      'afterNamespacePrepared:d',
      'afterNamespacePrepared:e',
      'afterNamespacePrepared:f',
      'beforeNamespaceDelete:e',
      'beforeNamespaceDelete:d',
      'beforeNamespaceDelete:a',
    ]);
    assert.equal(error.message, 'afterNamespacePrepared hook of lifecycle driver "f" failed', 'a compensation failure does not mask the cause');
  });

  it('a failing beforeNamespaceDelete stops the deletion hooks and compensates nothing', async () => {
    const log: string[] = [];
    await rejection(runNamespaceHooks(owners(log, { fail: ['beforeNamespaceDelete'] }), 'beforeNamespaceDelete', NAMESPACE));
    assert.deepEqual(log, ['beforeNamespaceDelete:c', 'beforeNamespaceDelete:b']);
  });

  it('cancels a pending namespace hook on abort', async () => {
    const log: string[] = [];
    const controller = new AbortController();
    const outcome = rejection(runNamespaceHooks([hangingOwner('slow', log)], 'beforeNamespaceDelete', NAMESPACE, controller.signal));
    await settle();
    controller.abort();
    assert.equal((await outcome).code, 'cancelled');
  });
});
