// Harness and revision admission: only embedded OpenClaw with runtime credentials, nothing SSH cannot honour.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { agentFor, revisionFor } from '../testing/fakes.js';
import type { HarnessAuth } from '../types.js';
import { SUPPORTED_HARNESS, admitRevision, validateHarnessAuth } from './harness.js';

/** Asserts `run` throws a permanent `admission` ComputeError and returns it. */
function refused(run: () => void): ComputeError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
    assert.equal(error.code, 'admission');
    assert.equal(error.failure, 'permanent');
    return error;
  }
  assert.fail('expected an admission refusal');
}

describe('validateHarnessAuth', () => {
  it('accepts openclaw/embedded with exactly { method: "runtime" }', () => {
    assert.equal(SUPPORTED_HARNESS, 'openclaw/embedded');
    assert.doesNotThrow(() => validateHarnessAuth('openclaw/embedded', { method: 'runtime' }));
  });

  it('refuses other harnesses, dedicated Codex included', () => {
    for (const harness of ['codex/dedicated', 'openclaw/dedicated', 'OpenClaw/Embedded', 'openclaw/embedded ', '']) {
      const error = refused(() => validateHarnessAuth(harness, { method: 'runtime' }));
      assert.equal(error.details.key, 'harness');
    }
  });

  it('refuses managed credentials and other methods', () => {
    const cases: unknown[] = [
      { method: 'secret', secretRef: { name: 'model-key', key: 'apiKey' } },
      { method: 'secret' },
      { method: 'chatgpt', account: 'someone@example.com' },
      { method: 'apiKey', key: 'sk-live-1' },
      { method: 'Runtime' },
      { method: '' },
    ];
    for (const auth of cases) {
      const error = refused(() => validateHarnessAuth('openclaw/embedded', auth as HarnessAuth));
      assert.equal(error.details.key, 'harnessAuth');
    }
  });

  it('refuses runtime with any extra key', () => {
    for (const extra of [{ secretRef: 'x' }, { env: 'OPENAI_API_KEY' }, { account: undefined }]) {
      refused(() => validateHarnessAuth('openclaw/embedded', { method: 'runtime', ...extra }));
    }
  });

  it('refuses a missing or malformed auth', () => {
    for (const auth of [undefined, null, {}, [], 'runtime', ['runtime'], 1]) {
      refused(() => validateHarnessAuth('openclaw/embedded', auth as unknown as HarnessAuth));
    }
  });

  it('checks the harness before the auth, so a dedicated harness is named even with valid auth', () => {
    const error = refused(() => validateHarnessAuth('codex/dedicated', { method: 'secret' }));
    assert.equal(error.details.key, 'harness');
    assert.match(error.message, /codex\/dedicated/);
  });

  it('does not let an inherited method stand in for the one own key "method"', () => {
    // Own keys are { secretRef } only; "runtime" comes from the prototype.
    const auth = Object.assign(Object.create({ method: 'runtime' }) as HarnessAuth, { secretRef: 'model-key' });
    refused(() => validateHarnessAuth('openclaw/embedded', auth));
  });

  it('never echoes an unprintable harness verbatim', () => {
    const error = refused(() => validateHarnessAuth('evil\n\u001b[31mharness', { method: 'runtime' }));
    assert.ok(!error.message.includes('\n'));
    assert.ok(!error.message.includes('\u001b'));
  });
});

describe('admitRevision', () => {
  const agent = agentFor();

  it('admits a plain embedded runtime revision', () => {
    assert.doesNotThrow(() => admitRevision(revisionFor(), agent));
  });

  it('admits null, undefined and empty secret bindings, plugins and sandbox, and a null or missing approver policy', () => {
    for (const value of [null, undefined]) {
      assert.doesNotThrow(() => admitRevision(revisionFor({ secretBindings: value, plugins: value, sandbox: value }), agentFor({ defaultPluginApprovers: value })));
    }
    assert.doesNotThrow(() => admitRevision(revisionFor({ secretBindings: [], plugins: {} }), agentFor()));
    assert.doesNotThrow(() => admitRevision(revisionFor({ dedicated: false }), agentFor()));
  });

  it('runs harness admission first', () => {
    const error = refused(() => admitRevision(revisionFor({ harness: 'codex/dedicated' }), agent));
    assert.equal(error.details.key, 'harness');
    assert.equal(refused(() => admitRevision(revisionFor({ harnessAuth: { method: 'secret', secretRef: 'k' } }), agent)).details.key, 'harnessAuth');
  });

  it('refuses OCC Secret bindings', () => {
    const error = refused(() => admitRevision(revisionFor({ secretBindings: [{ name: 'model-key' }] }), agent));
    assert.equal(error.details.key, 'secretBindings');
  });

  it('refuses a Sandbox request', () => {
    for (const sandbox of [{ driver: 'sandbox-gvisor' }, {}, true]) {
      assert.equal(refused(() => admitRevision(revisionFor({ sandbox }), agent)).details.key, 'sandbox');
    }
  });

  it('refuses a nonempty plugin map', () => {
    const error = refused(() => admitRevision(revisionFor({ plugins: { 'memory-lancedb': { version: '1' } } }), agent));
    assert.equal(error.details.key, 'plugins');
  });

  it('refuses dedicated execution', () => {
    assert.equal(refused(() => admitRevision(revisionFor({ dedicated: true }), agent)).details.key, 'dedicated');
  });

  it('refuses an Agent default plugin approver policy, an explicit empty list included', () => {
    for (const approvers of [[], ['user:alice']]) {
      const error = refused(() => admitRevision(revisionFor(), agentFor({ defaultPluginApprovers: approvers })));
      assert.equal(error.details.key, 'defaultPluginApprovers');
    }
  });
});
