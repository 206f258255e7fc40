// Test fixtures: the reference's Compute selection inside a full Installation, and edit helpers.
import assert from 'node:assert/strict';
import { ComputeError } from '@occ-ssh/protocol';
import { CONFIG_KEY, REFERENCE_COMPUTE_SELECTION } from '@occ-ssh/test-support';
import { loadInstallationConfiguration } from '../src/config/load.js';

export { CONFIG_KEY };

/** The reference's example (lines 1-25), then OCC's own selections, which this package must leave unvalidated. */
export const SEED_INSTALLATION = `${REFERENCE_COMPUTE_SELECTION}  configuration:
    id: configuration-postgres
    configuration: { anyKey: [not, ours, to, check] }
  iam:
    id: iam-oidc
  secret:
    id: secret-kubernetes
occ:
  publicUrl: https://occ.example.com
  anythingOccOwns: true
`;

/** `text` with the one occurrence of `from` replaced; a missing or repeated `from` is a test bug. */
export function edit(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  assert.ok(at >= 0, `fixture edit: ${JSON.stringify(from)} not found`);
  assert.equal(text.indexOf(from, at + 1), -1, `fixture edit: ${JSON.stringify(from)} occurs more than once`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** Applies several edits to the seed Installation in turn. */
export function seedWith(...edits: readonly (readonly [string, string])[]): string {
  return edits.reduce((text, [from, to]) => edit(text, from, to), SEED_INSTALLATION);
}

/** The permanent configuration ComputeError that loading `text` must throw. */
export function refusal(text: string, path?: string): ComputeError {
  try {
    loadInstallationConfiguration(path === undefined ? { text } : { text, path });
  } catch (error) {
    assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
    assert.equal(error.code, 'configuration');
    assert.equal(error.failure, 'permanent');
    return error;
  }
  assert.fail('expected the Installation to be refused');
}

export interface RefusalCase {
  readonly name: string;
  readonly text: string;
  /** The full key path in `details.key` and at the start of the message; undefined for the document. */
  readonly key: string | undefined;
  /** The one message line expected: `<key path>: <reason>[, got <value>] (line N)`. */
  readonly line: string;
}

/** Each case must be refused with exactly one problem, reading exactly `line`. */
export function assertRefusal({ text, key, line }: RefusalCase): void {
  const error = refusal(text);
  assert.equal(error.details.key, key);
  assert.deepEqual(error.message.split('\n'), [line]);
}
