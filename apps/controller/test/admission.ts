// Test helper: asserts that document admission refuses a gateway configuration, permanently.
import assert from 'node:assert/strict';
import { ComputeError } from '@occ-ssh/protocol';
import { sshGatewayConfigurationDocument } from '../src/admission/document.js';

/** Asserts a permanent `admission` refusal whose key is `configuration.<key>` (when given), and returns it. */
export function refusedDocument(configuration: unknown, key?: string): ComputeError {
  try {
    sshGatewayConfigurationDocument(configuration);
  } catch (error) {
    assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
    assert.equal(error.code, 'admission');
    assert.equal(error.failure, 'permanent');
    if (key !== undefined) assert.equal(error.details.key, `configuration.${key}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(configuration)?.slice(0, 200)} to be refused`);
}
