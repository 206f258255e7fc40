// The removal area on this machine: staging renames a tree into root's 0700 area after its marker,
// a claim is one helper's alone, and finishing removes the tree (never through a link) and its marker.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { removalLayout, removalMarker } from '@occ-ssh/markers';
import type { ComputeError } from '@occ-ssh/protocol';
import { guardChanges } from '../run/change-guard.js';
import { readMarker } from '../fs/marker-io.js';
import { claimRemovals, finishRemovals, stageRemoval } from './removal-area.js';
import { hostRunner } from '../run/system.js';

const base = mkdtempSync('/var/lib/occ-removal-');
after(() => spawnSync('rm', ['-rf', '--one-file-system', '--', base]));
guardChanges(() => undefined);
const signal = new AbortController().signal;
const OWNER = { namespaceId: 'ns-01HZX3', agentId: 'agent-7f3a' };

let count = 0;
/** A fresh root holding one planted tree: a 000 directory and a link pointing outside. */
function planted(): { root: string; dir: string } {
  const root = `${base}/${(count += 1)}`;
  const dir = `${root}/namespaces/agent`;
  mkdirSync(`${dir}/state/locked/inner`, { recursive: true });
  writeFileSync(`${base}/outside`, 'keep');
  symlinkSync(`${base}/outside`, `${dir}/state/link`);
  chmodSync(`${dir}/state/locked`, 0);
  return { root, dir };
}

describe('the removal area', () => {
  it('stages a tree into a root 0700 area beside its marker, then removes both, leaving link targets', async () => {
    const { root, dir } = planted();
    const tree = stageRemoval(root, dir, OWNER);
    assert.equal(existsSync(dir), false);
    const area = statSync(`${root}/.removing`);
    assert.deepEqual({ uid: area.uid, gid: area.gid, mode: area.mode & 0o7777 }, { uid: 0, gid: 0, mode: 0o700 });
    const token = tree.slice(-16);
    const record = readMarker(removalLayout(root, token).marker, removalMarker);
    assert.equal(record?.from, dir);
    assert.equal(record?.agentId, OWNER.agentId);
    const claims = await claimRemovals(root, OWNER, signal);
    assert.equal(claims.length, 1);
    await finishRemovals(hostRunner, claims, signal, () => 10_000);
    assert.deepEqual(readdirSync(`${root}/.removing`), []);
    assert.equal(readFileSync(`${base}/outside`, 'utf8'), 'keep');
  });

  it("a removal another helper holds is returned unheld, and another Agent's not at all", async () => {
    const { root, dir } = planted();
    stageRemoval(root, dir, OWNER);
    const first = await claimRemovals(root, OWNER, signal);
    assert.equal(first[0]?.held !== undefined, true);
    const second = await claimRemovals(root, OWNER, signal);
    assert.deepEqual(
      second.map((claim) => [claim.marker, claim.held]),
      [[first[0]!.marker, undefined]],
    );
    assert.deepEqual(await claimRemovals(root, { ...OWNER, agentId: 'agent-other' }, signal), []);
    // The waiter finds the holder's removal finished once the holder releases it.
    const waiting = finishRemovals(hostRunner, second, signal, () => 10_000);
    await finishRemovals(hostRunner, first, signal, () => 10_000);
    await waiting;
    assert.deepEqual(readdirSync(`${root}/.removing`), []);
    // A Namespace's deletion finishes its Agents' removals too: nothing is left for it.
    assert.deepEqual(await claimRemovals(root, { namespaceId: OWNER.namespaceId }, signal), []);
  });

  it('a holder that stops short (its claim released, the tree still there) leaves the removal to the waiter', async () => {
    const { root, dir } = planted();
    const tree = stageRemoval(root, dir, OWNER);
    const [cut] = await claimRemovals(root, OWNER, signal);
    const waiting = claimRemovals(root, { namespaceId: OWNER.namespaceId }, signal).then((claims) => finishRemovals(hostRunner, claims, signal, () => 10_000));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(existsSync(tree), true, 'the waiter waits while the claim is held');
    await cut!.held!.release();
    await waiting;
    assert.deepEqual(readdirSync(`${root}/.removing`), []);
  });

  it('a claim still held when the call runs out of time is a retryable conflict naming the marker', async () => {
    const { root, dir } = planted();
    stageRemoval(root, dir, OWNER);
    const first = await claimRemovals(root, OWNER, signal);
    const second = await claimRemovals(root, OWNER, signal);
    await assert.rejects(
      finishRemovals(hostRunner, second, signal, () => 200),
      (error: ComputeError) => {
        assert.equal(error.code, 'conflict');
        assert.equal(error.retryable, true);
        assert.match(error.message, new RegExp(`${first[0]!.marker} is still being removed by another helper`));
        return true;
      },
    );
    await finishRemovals(hostRunner, first, signal, () => 10_000);
    assert.deepEqual(readdirSync(`${root}/.removing`), []);
  });

  it('a marker whose tree never arrived (a kill between the two) is dropped by the next claim', async () => {
    const { root, dir } = planted();
    const tree = stageRemoval(root, dir, OWNER);
    spawnSync('rm', ['-rf', '--', tree]);
    const claims = await claimRemovals(root, { namespaceId: OWNER.namespaceId }, signal);
    assert.equal(claims.length, 1);
    await finishRemovals(hostRunner, claims, signal, () => 10_000);
    assert.deepEqual(readdirSync(`${root}/.removing`), []);
  });
});
