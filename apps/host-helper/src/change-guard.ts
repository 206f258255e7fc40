// The check made before each single change to the host. A mutating operation installs its
// session's check once it holds the lock; the file primitives call it before every write, link,
// rename, removal or ownership change, so a closed session or a passed deadline stops the helper
// between two changes rather than at the end of a phase. Module state, because the helper runs
// one operation per process and the primitives sit far below the operation's context.
let check: () => void = () => undefined;

export function guardChanges(before: () => void): void {
  check = before;
}

/** Throws (cancelled or timeout) instead of letting the next change begin. */
export function beforeChange(): void {
  check();
}
