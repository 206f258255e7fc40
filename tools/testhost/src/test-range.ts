// Keeps the whole test address range on this machine: while any test host slot is claimed, an
// `unreachable` route covers 10.213.0.0/16, so an address of the range with no live host fails at
// once, locally, instead of following the default route off the machine. Each live host's /30 is
// more specific and still wins.
import { readdirSync } from 'node:fs';
import { runSync } from './command.js';
import { layout } from './paths.js';

export const TEST_RANGE = '10.213.0.0/16';

const ROUTE = ['unreachable', TEST_RANGE] as const;

/** How many address slots are claimed machine-wide (live or not yet reaped): each may be a host. */
export function claimedSlots(): number {
  try {
    return readdirSync(layout.slots()).filter((s) => /^\d+$/.test(s)).length;
  } catch {
    return 0;
  }
}

/** Whether the machine has the range route in place right now. */
export function testRangeRouted(): boolean {
  const out = runSync('ip', ['-4', 'route', 'show', 'type', 'unreachable', TEST_RANGE]).stdout;
  return out.trim() !== '';
}

/** Called after a slot is claimed and before its host is reachable; idempotent. */
export function holdTestRange(): void {
  const r = runSync('ip', ['-4', 'route', 'replace', ...ROUTE]);
  if (r.code !== 0) throw new Error(`ip route replace ${ROUTE.join(' ')}: ${r.stderr.trim()}`);
}

/**
 * Called after a slot is released. The route goes only when no slot is claimed; a slot claimed
 * meanwhile by another process re-adds it, because a claimer adds the route after its claim and
 * this side checks again after deleting.
 */
export function releaseTestRange(): string[] {
  if (claimedSlots() > 0 || !testRangeRouted()) return [];
  const r = runSync('ip', ['-4', 'route', 'del', ...ROUTE]);
  if (claimedSlots() > 0) holdTestRange();
  return r.code === 0 || !testRangeRouted() ? [] : [`ip route del ${ROUTE.join(' ')}: ${r.stderr.trim()}`];
}
