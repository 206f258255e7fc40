import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aimsBetweenChanges } from './kill-line.js';
import { MAX_STEP_DELAY_MS, STEP_DELAY_MS, StepDelays } from './step-delay.js';

describe('the hold of each change call, calibrated by where kills land', () => {
  it('doubles an operation’s hold only after a kill aimed between two changes arrived late, up to the cap', () => {
    const delays = new StepDelays();
    assert.equal(delays.of('retire-revision'), STEP_DELAY_MS);
    delays.observe('retire-revision', false, true);
    delays.observe('retire-revision', true, false);
    assert.equal(delays.of('retire-revision'), STEP_DELAY_MS, 'a kill not aimed between changes, or one that landed between them, changes nothing');
    delays.observe('retire-revision', true, true);
    assert.equal(delays.of('retire-revision'), 2 * STEP_DELAY_MS);
    for (let i = 0; i < 10; i += 1) delays.observe('retire-revision', true, true);
    assert.equal(delays.of('retire-revision'), MAX_STEP_DELAY_MS);
    assert.equal(delays.of('activate-revision'), STEP_DELAY_MS, 'each operation has its own hold');
    assert.deepEqual(delays.snapshot(), { 'retire-revision': MAX_STEP_DELAY_MS });
  });

  it('takes a kill after a line that begins a change with another after it as aimed between two changes', () => {
    // Two checks, then two changes (a retirement of a revision that is not current): only line 3.
    assert.deepEqual(
      [1, 2, 3, 4].map((line) => aimsBetweenChanges(line, 4)),
      [false, false, true, false],
    );
    assert.equal(aimsBetweenChanges(3, 3), false, 'one change has no line between two');
  });
});
