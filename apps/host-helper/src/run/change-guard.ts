// The check made before each single change to the host, and the only way to it: dispatch installs
// the session's check for a mutating operation before its first change (the root's creation), and
// every primitive that changes the host (file writes, links, renames, removals, the temp sweep,
// useradd/userdel, state-changing systemctl, work as an Agent's account) calls it first, so a
// closed session or a passed deadline stops the helper between two changes rather than at the end
// of a phase, and the audit line counts each change once. Module state, because the helper runs
// one operation per process and the primitives sit far below the operation's context.
let check: () => void = () => undefined;

export function guardChanges(before: () => void): void {
  check = before;
}

/** Throws (cancelled or timeout) instead of letting the next change begin. */
export function beforeChange(): void {
  check();
}
