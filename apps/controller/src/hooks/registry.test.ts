// HookRegistry: selected Configuration/IAM owners only, once each, fixed at the first lifecycle operation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { recordingOwner } from '../testing/fakes.js';
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
  it('keeps selected owners in registration order', () => {
    const registry = new HookRegistry(new Set(['configuration-postgres', 'iam-oidc']));
    registry.set([iam, config]);
    assert.deepEqual(registry.fix().map((owner) => owner.id), ['iam-oidc', 'configuration-postgres']);
  });

  it('starts with no owners', () => {
    assert.deepEqual(new HookRegistry(new Set()).fix(), []);
  });

  it('refuses a duplicate owner', () => {
    const registry = new HookRegistry(new Set(['configuration-postgres']));
    refusedWith(() => registry.set([config, recordingOwner('configuration-postgres', log)]), /registered twice/);
  });

  it('refuses an owner the Installation does not select', () => {
    const registry = new HookRegistry(new Set(['iam-oidc']));
    refusedWith(() => registry.set([iam, config]), /"configuration-postgres" is not selected/);
    assert.deepEqual(registry.fix(), [], 'a refused set leaves no partial registration');
  });

  it('refuses capabilities other than Configuration and IAM', () => {
    const registry = new HookRegistry(new Set(['secret-kubernetes', 'sandbox-gvisor']));
    for (const capability of ['secret', 'sandbox', 'compute']) {
      const owner = { ...recordingOwner('secret-kubernetes', log), capability } as unknown as LifecycleDriver;
      refusedWith(() => registry.set([owner]), /only Configuration and IAM/);
    }
  });

  it('refuses changes once fixed, even to the same owners or none', () => {
    const registry = new HookRegistry(new Set(['configuration-postgres']));
    registry.set([config]);
    registry.fix();
    refusedWith(() => registry.set([config]), /fixed once the first lifecycle operation has begun/);
    refusedWith(() => registry.set([]), /fixed/);
    assert.deepEqual(registry.fix().map((owner) => owner.id), ['configuration-postgres']);
  });

  it('allows replacing owners before the first lifecycle operation', () => {
    const registry = new HookRegistry(new Set(['configuration-postgres', 'iam-oidc']));
    registry.set([config]);
    registry.set([iam]);
    assert.deepEqual(registry.fix().map((owner) => owner.id), ['iam-oidc']);
  });

  it('does not follow later changes to the array it was given', () => {
    const registry = new HookRegistry(new Set(['configuration-postgres', 'iam-oidc']));
    const drivers = [config];
    registry.set(drivers);
    drivers.push(iam);
    assert.deepEqual(registry.fix().map((owner) => owner.id), ['configuration-postgres']);
    assert.ok(Object.isFrozen(registry.fix()));
  });
});
