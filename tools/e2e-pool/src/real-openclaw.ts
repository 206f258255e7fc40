// The real-host files that start the real OpenClaw (its gateway, or its native setup). Each start
// costs seconds of CPU on two cores, and their bounds (readiness within 120 s, native setup within
// its own) are the product's, not the test's: the pool runs only a few of them at once, and none
// while the unit suites load the machine. Which files these are only orders the pool; it never
// decides a pass or a fail.
import { existsSync } from 'node:fs';

/** Host files (`*.host.test.ts`) that start it too; every `*.e2e.test.ts` file does. */
export const REAL_OPENCLAW_HOST_FILES: ReadonlySet<string> = new Set([
  'apps/host-helper/src/scenarios/hardening.host.test.ts',
  'apps/host-helper/src/scenarios/workspace-kill.host.test.ts',
  'tools/testhost/src/openclaw-gateway.host.test.ts',
]);

/** At most this many such files at once. */
export const REAL_OPENCLAW_AT_ONCE = 3;

/** Whether the file of a job label (`<file>` or `<file> [image]`) starts the real OpenClaw. */
export function startsRealOpenClaw(label: string): boolean {
  const file = label.replace(/ \[[^\]]+\]$/, '');
  return file.endsWith('.e2e.test.ts') || REAL_OPENCLAW_HOST_FILES.has(file);
}

/**
 * The pool's rule for them: fewer than REAL_OPENCLAW_AT_ONCE running, and, when `gate` names a file,
 * not before it exists (`npm test` makes it once lint, typecheck and the unit suites have ended).
 */
export function realOpenClawRule<J extends { label: string }>(gate: string | undefined, exists: (path: string) => boolean = existsSync) {
  return (job: J, running: readonly J[]): boolean => {
    if (!startsRealOpenClaw(job.label)) return true;
    if (gate !== undefined && gate !== '' && !exists(gate)) return false;
    return running.filter((other) => startsRealOpenClaw(other.label)).length < REAL_OPENCLAW_AT_ONCE;
  };
}
