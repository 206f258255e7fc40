// The crash-point and kill lanes' workspace document sentinel, and what a lane's host kept to search for it.
import { randomBytes } from 'node:crypto';
import type { HostLink } from '../host/ssh.js';
import { findSightings, type Corpus, type Sighting } from './sightings.js';

/**
 * In every workspace document the crash-point and kill lanes deliver (fixture-args.ts setupArgs); a
 * fresh one per run. Nothing those lanes collect (audit lines, journals, argv, the results file) may
 * show it in any encoding.
 */
export const LANE_DOCUMENT_SENTINEL = `lane-document-sentinel-${randomBytes(12).toString('hex')}`;

/** Searches what the lanes collected for their document sentinel. */
export function laneSightings(corpora: readonly Corpus[]): Sighting[] {
  return findSightings([{ name: 'lane workspace document sentinel', value: LANE_DOCUMENT_SENTINEL }], corpora);
}

/** What a lane's host kept once the lane is done: every helper audit line, and the whole journal (gateway and native-setup units, systemd). */
export async function laneJournals(link: HostLink, lane: string): Promise<Corpus[]> {
  const audit = await link.run(['journalctl', '--no-pager', '-o', 'cat', '_UID=0', '_TRANSPORT=syslog', 'SYSLOG_IDENTIFIER=occ-ssh-helper']);
  // Every journal namespace: the gateways and native setup log into their own (libs/markers unit.ts).
  const journal = await link.run(['journalctl', '--namespace=*', '--no-pager', '-o', 'short-iso']);
  return [
    { name: `${lane}: helper audit lines`, text: audit },
    { name: `${lane}: host journal`, text: journal },
  ];
}
