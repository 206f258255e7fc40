// HookRegistry: the Configuration/IAM drivers OCC hands over, with valid hooks, once each, fixed at the first lifecycle operation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { recordingOwner } from '../../test/fakes.js';
import type { LifecycleDriver } from '../types.js';
import { HookRegistry } from './registry.js';

const log: string[] = [];
const config = recordingOwner('configuration-postgres', log);
const iam = recordingOwner('iam-oidc', log, { capability: 'iam' });

function refusedWith(run: () => void, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ComputeError);
    assert.equal(error.code, 'configuration');
    assert.equal(error.failure, 'permanent');
    assert.match(error.message, pattern);
    return true;
  });
}

describe('HookRegistry', () => {
  it('keeps owners in registration order', () => {
    const registry = new HookRegistry();
    registry.set([iam, config]);
    assert.deepEqual(
      registry.ownersForOperation().map((owner) => owner.id),
      ['iam-oidc', 'configuration-postgres'],
    );
  });

  it('starts with no owners', () => {
    assert.deepEqual(new HookRegistry().ownersForOperation(), []);
  });

  it('refuses a duplicate owner', () => {
    const registry = new HookRegistry();
    refusedWith(() => registry.set([config, recordingOwner('configuration-postgres', log)]), /registered twice/);
  });

  it("takes OCC's selection as given: any driver handed over with valid hooks is an owner", () => {
    const registry = new HookRegistry();
    registry.set([recordingOwner('iam-anything', log, { capability: 'iam' })]);
    assert.deepEqual(
      registry.ownersForOperation().map((owner) => owner.id),
      ['iam-anything'],
    );
  });

  it("refuses computeLifecycleHooks that break OCC's rules: missing, empty, unknown phase or not a function", () => {
    const cases: unknown[] = [
      undefined,
      null,
      {},
      [],
      { beforeWorkloadStart: 'x' },
      { afterCommit: async () => undefined },
      { beforeWorkloadStop: async () => undefined, extra: async () => undefined },
    ];
    for (const computeLifecycleHooks of cases) {
      const registry = new HookRegistry();
      const owner = { id: 'config-x', capability: 'configuration', implementation: 'occ/x', computeLifecycleHooks } as unknown as LifecycleDriver;
      refusedWith(() => registry.set([owner]), /invalid computeLifecycleHooks/);
      assert.deepEqual(registry.ownersForOperation(), [], 'a refused set leaves no partial registration');
    }
  });

  it('refuses capabilities other than Configuration and IAM', () => {
    const registry = new HookRegistry();
    for (const capability of ['secret', 'sandbox', 'compute']) {
      const owner = { ...recordingOwner('secret-kubernetes', log), capability } as unknown as LifecycleDriver;
      refusedWith(() => registry.set([owner]), /only Configuration and IAM/);
    }
  });

  it('refuses changes once fixed, even to the same owners or none', () => {
    const registry = new HookRegistry();
    registry.set([config]);
    registry.ownersForOperation();
    refusedWith(() => registry.set([config]), /fixed once the first lifecycle operation has begun/);
    refusedWith(() => registry.set([]), /fixed/);
    assert.deepEqual(
      registry.ownersForOperation().map((owner) => owner.id),
      ['configuration-postgres'],
    );
  });

  it('allows replacing owners before the first lifecycle operation', () => {
    const registry = new HookRegistry();
    registry.set([config]);
    registry.set([iam]);
    assert.deepEqual(
      registry.ownersForOperation().map((owner) => owner.id),
      ['iam-oidc'],
    );
  });

  it('does not follow later changes to the array it was given', () => {
    const registry = new HookRegistry();
    const drivers = [config];
    registry.set(drivers);
    drivers.push(iam);
    assert.deepEqual(
      registry.ownersForOperation().map((owner) => owner.id),
      ['configuration-postgres'],
    );
    assert.ok(Object.isFrozen(registry.ownersForOperation()));
  });
});
