// How long strace holds each of the helper's change system calls, per operation, calibrated on the
// machine the lane runs on. A kill sent after the line that begins a change must cross the client,
// the network and sshd before the helper's check at the next change: under the campaign's load that
// trip took longer than retiring a revision that is not current takes between its two changes (one
// marker removal, one held call), so most of its kills landed after the operation had finished. A
// kill aimed between two changes that lands after the next one began (or after the end) doubles that
// operation's hold, up to a cap: a slower disk for it alone, so the interruption the section is for
// happens on a loaded machine too. The helper itself stays the shipped artifact, unchanged.

/** The hold every operation starts with: a slow disk, far below any operation's own bounds. */
export const STEP_DELAY_MS = 15;
/** The most an operation's hold grows to: its few changes then take seconds, not minutes. */
export const MAX_STEP_DELAY_MS = 240;

export class StepDelays {
  private readonly ms = new Map<string, number>();

  of(operation: string): number {
    return this.ms.get(operation) ?? STEP_DELAY_MS;
  }

  /** After a kill aimed between two changes of `operation`: `reachedLate` when it met the helper only after the next change began. */
  observe(operation: string, aimedBetween: boolean, reachedLate: boolean): void {
    if (aimedBetween && reachedLate) this.ms.set(operation, Math.min(MAX_STEP_DELAY_MS, this.of(operation) * 2));
  }

  /** The holds that grew, by operation. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.ms);
  }
}
