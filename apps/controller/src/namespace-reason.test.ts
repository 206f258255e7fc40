// NamespaceEnsureResult.reason: the bounded, secret-free explanation OCC's worker logs for a failed Namespace pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError, ERROR_CODES } from '@occ-ssh/protocol';
import { MAX_NAMESPACE_REASON, NAMESPACE_REASON, namespaceFailureReason } from './namespace-reason.js';

describe('namespaceFailureReason', () => {
  it('names the catalogue code and the first line of the message', () => {
    const error = new ComputeError('configuration', 'Namespace "nowhere" is not mapped to a host in drivers.compute.configuration.hosts\nsecond line');
    assert.equal(namespaceFailureReason(error), 'configuration: Namespace nowhere is not mapped to a host in drivers.compute.configuration.hosts');
  });

  it("keeps only the characters OCC's log keeps, at most 256, for every code and any message", () => {
    const messages = ['plain', 'tab\there "quoted" (paren) [bracket] {brace} ~tilde', '\u001b[31mred\u001b[0m ünïcödé', 'x'.repeat(400), '', '\n\n'];
    for (const code of ERROR_CODES) {
      for (const message of messages) {
        const reason = namespaceFailureReason(new ComputeError(code, message));
        assert.match(reason, NAMESPACE_REASON, JSON.stringify({ code, message }));
        assert.ok(reason.length <= MAX_NAMESPACE_REASON);
        assert.ok(reason.startsWith(`${code}:`), reason);
      }
    }
  });

  it('never carries an opaque placeholder value', () => {
    const reason = namespaceFailureReason(new ComputeError('hook', 'IAM hook returned opaque-iam-7f3a+x/y=z for OCC_TOKEN'));
    assert.doesNotMatch(reason, /7f3a/);
    assert.match(reason, /opaque-redacted/);
  });
});
