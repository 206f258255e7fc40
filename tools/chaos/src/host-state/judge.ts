// What every invariant check shares: the model of one Listing, where violations and pending items
// are written, and the check every marker gets (root:root 0600, parsed). Pure.
import type { Listing } from '../host/listing.js';
import { buildModel, type HostModel, type Parsed } from './model.js';

export type Rule =
  | 'marker'
  | 'marker-owner'
  | 'marker-mode'
  | 'snapshot'
  | 'current'
  | 'served'
  | 'temp-file'
  | 'lock'
  | 'helper-running'
  | 'orphan-account'
  | 'account-binding'
  | 'agent-dir'
  | 'private-dir'
  | 'unit'
  | 'port'
  | 'uid';

export interface Violation {
  rule: Rule;
  path: string;
  message: string;
}

export interface Verdict {
  violations: Violation[];
  pending: string[];
}

export interface InvariantSettings {
  /** runtime.user: account names are `<user>-<12 hex>`. */
  user: string;
  portRange: { start: number; end: number };
}

const ROOT_MARKER = { uid: 0, gid: 0, mode: 0o600 };

export interface Judge {
  model: HostModel;
  listing: Listing;
  settings: InvariantSettings;
  violations: Violation[];
  pending: string[];
  add: (rule: Rule, path: string, message: string) => void;
  /** True when the marker parsed; reports its mode and its problem either way. */
  markerOk: <T>(parsed: Parsed<T> | null, path: string) => parsed is Parsed<T> & { marker: T };
}

export function newJudge(listing: Listing, settings: InvariantSettings): Judge {
  const violations: Violation[] = [];
  const add = (rule: Rule, path: string, message: string) => violations.push({ rule, path, message });
  const markerOk = <T>(parsed: Parsed<T> | null, path: string): parsed is Parsed<T> & { marker: T } => {
    if (!parsed) return false;
    const { entry } = parsed;
    if (entry.type === 'file' && (entry.uid !== ROOT_MARKER.uid || entry.gid !== ROOT_MARKER.gid || entry.mode !== ROOT_MARKER.mode)) {
      add('marker-mode', path, `expected root:root 0600, found ${entry.uid}:${entry.gid} ${entry.mode.toString(8)}`);
    }
    if (parsed.problem) add('marker', path, `marker ${parsed.problem}`);
    return parsed.marker !== null;
  };
  return { model: buildModel(listing), listing, settings, violations, pending: [], add, markerOk };
}
