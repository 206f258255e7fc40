import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REAL_OPENCLAW_AT_ONCE, REAL_OPENCLAW_HOST_FILES, realOpenClawRule, startsRealOpenClaw } from './real-openclaw.js';

const job = (label: string) => ({ label });

describe('the files that start the real OpenClaw', () => {
  it('are every e2e file, on either image, and the host files named', () => {
    assert.equal(startsRealOpenClaw('apps/controller/src/scenarios/openclaw.e2e.test.ts'), true);
    assert.equal(startsRealOpenClaw('apps/controller/src/scenarios/openclaw.e2e.test.ts [debian13-node26]'), true);
    assert.equal(startsRealOpenClaw('apps/host-helper/src/scenarios/workspace-kill.host.test.ts'), true);
    assert.equal(startsRealOpenClaw('tools/testhost/src/openclaw-gateway.host.test.ts [debian13-node26]'), true);
    assert.equal(startsRealOpenClaw('apps/host-helper/src/scenarios/tenant-core.host.test.ts'), false);
  });

  it(`run at most ${REAL_OPENCLAW_AT_ONCE} at once; other files are never held`, () => {
    const rule = realOpenClawRule<{ label: string }>(undefined);
    const gateways = Array.from({ length: REAL_OPENCLAW_AT_ONCE }, (_, i) => job(`a/g${i}.e2e.test.ts`));
    assert.equal(rule(job('a/next.e2e.test.ts'), gateways.slice(1)), true);
    assert.equal(rule(job('a/next.e2e.test.ts'), gateways), false);
    assert.equal(rule(job('a/plain.host.test.ts'), gateways), true);
  });

  it('wait for the gate file when one is named, and only they wait', () => {
    let exists = false;
    const rule = realOpenClawRule<{ label: string }>('/gate', (path) => path === '/gate' && exists);
    assert.equal(rule(job('a/g.e2e.test.ts'), []), false);
    assert.equal(rule(job('a/plain.host.test.ts'), []), true);
    exists = true;
    assert.equal(rule(job('a/g.e2e.test.ts'), []), true);
  });

  it('names only host files that exist', () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    assert.ok(REAL_OPENCLAW_HOST_FILES.size > 0);
    for (const file of REAL_OPENCLAW_HOST_FILES) {
      assert.match(file, /\.host\.test\.ts$/);
      assert.equal(existsSync(path.join(root, file)), true, file);
    }
  });
});
