// How apply names a new account's IDs: from the step that created it, never before.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveAccount } from './apply.js';

describe('resolveAccount', () => {
  const applied = { accounts: new Map([['openclaw-d74736b6a770', { name: 'openclaw-d74736b6a770', uid: 991, gid: 992 }]]) };

  it('takes the UID and GID a create-account step returned', () => {
    const planned = { name: 'openclaw-d74736b6a770', uid: { uidOf: 'openclaw-d74736b6a770' }, gid: { gidOf: 'openclaw-d74736b6a770' } };
    assert.deepEqual(resolveAccount(applied, planned), { name: 'openclaw-d74736b6a770', uid: 991, gid: 992 });
  });

  it('keeps IDs the plan already knew', () => {
    assert.deepEqual(resolveAccount(applied, { name: 'known', uid: 5, gid: 6 }), { name: 'known', uid: 5, gid: 6 });
  });

  it('refuses an account no earlier step created', () => {
    assert.throws(() => resolveAccount(applied, { name: 'other', uid: { uidOf: 'other' }, gid: 7 }), /before creating it/);
  });
});
