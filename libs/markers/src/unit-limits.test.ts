// Per-gateway limits in the rendered unit: each only when set, inside [Service], and refused out of bounds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GatewayLimits } from '@occ-ssh/protocol';
import { exampleUnitInput } from './examples.js';
import { renderUnit, UnitRenderError } from './unit.js';

const render = (limits?: GatewayLimits) => renderUnit(exampleUnitInput({ limits }));

const LIMIT_LINE = /^(MemoryMax|MemorySwapMax|TasksMax|CPUWeight)=/;
const limitLines = (text: string) => text.split('\n').filter((line) => LIMIT_LINE.test(line));

describe('renderUnit gateway limits', () => {
  it('renders no limit line without limits, and the same unit for an empty set', () => {
    assert.deepEqual(limitLines(render()), []);
    assert.equal(render({}), render());
  });

  it('renders each limit set, in [Service], memory with swap off', () => {
    const text = render({ memoryMaxMiB: 1536, tasksMax: 256, cpuWeight: 50 });
    assert.deepEqual(limitLines(text), ['MemoryMax=1536M', 'MemorySwapMax=0', 'TasksMax=256', 'CPUWeight=50']);
    const service = text.slice(text.indexOf('[Service]'), text.indexOf('[Install]'));
    for (const line of limitLines(text)) assert.ok(service.includes(`\n${line}\n`), line);
  });

  it('renders only the limits set', () => {
    assert.deepEqual(limitLines(render({ tasksMax: 64 })), ['TasksMax=64']);
    assert.deepEqual(limitLines(render({ memoryMaxMiB: 512 })), ['MemoryMax=512M', 'MemorySwapMax=0']);
  });

  it('changes the unit text when a limit changes, so activation rewrites and reloads it', () => {
    assert.notEqual(render({ memoryMaxMiB: 512 }), render({ memoryMaxMiB: 1024 }));
    assert.notEqual(render({ cpuWeight: 100 }), render());
  });

  it('refuses a limit out of bounds, a fraction or an unknown limit', () => {
    for (const limits of [{ memoryMaxMiB: 64 }, { memoryMaxMiB: 1.5 }, { tasksMax: 0 }, { cpuWeight: 10_001 }, { swap: 1 } as GatewayLimits]) {
      assert.throws(() => render(limits), UnitRenderError, JSON.stringify(limits));
    }
  });
});
