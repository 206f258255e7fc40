// The campaign's results: per-section counts, the targets they are judged against, and the
// summary printed at the end, each from the section table. Judgement and summary are pure.
import type { MeasuredCommit } from '@occ-ssh/test-support';
import type { Options, SectionName } from '../campaign/options.js';
import { ANY_SECTIONS, type SectionResults } from '../campaign/sections.js';
import type { Counts } from '../campaign/section.js';
import type { SightingGroup } from '../secrets/sightings.js';
import type { Sizes } from '../campaign/sizes.js';

export type { SectionResults };

export interface Target {
  section: SectionName;
  name: string;
  met: boolean;
  detail: string;
}

export interface Results {
  mode: Options['mode'];
  seed: number;
  command: string;
  /** The commit measured (absent outside a git checkout). */
  commit?: MeasuredCommit;
  startedAt: string;
  durationMs: number;
  sizes: Sizes;
  sectionsRun: SectionName[];
  machine: { cpus: number; loadAverage: number[] };
  errors: string[];
  /** trials, violations, nonConverged, refused, unchanged and sightings of each section. */
  counts: Record<string, Counts>;
  sections: SectionResults;
  targets: Target[];
  ok: boolean;
  /** The crash-point and kill lanes' document sentinel, searched in what they kept (and this file). */
  laneDocuments?: { sightings: number; found: SightingGroup[]; corpora: { name: string; bytes: number }[] };
}

/** Each section that produced results, with them. */
function present(sections: SectionResults): { section: (typeof ANY_SECTIONS)[number]; summary: unknown }[] {
  const byKey = sections as Record<string, unknown>;
  return ANY_SECTIONS.filter((section) => byKey[section.key] !== undefined).map((section) => ({ section, summary: byKey[section.key] }));
}

export function countsOf(sections: SectionResults): Record<string, Counts> {
  return Object.fromEntries(present(sections).map(({ section, summary }) => [section.key, section.counts(summary)]));
}

/** Every target of every section that ran; a section that ran and produced nothing fails. */
export function judge(sections: SectionResults, sizes: Sizes, run: readonly SectionName[]): Target[] {
  const byKey = sections as Record<string, unknown>;
  return ANY_SECTIONS.filter((section) => run.includes(section.name)).flatMap((section) => {
    const summary = byKey[section.key];
    if (summary === undefined) return [{ section: section.name, name: 'section completed', met: false, detail: 'the section did not produce results (see errors)' }];
    return section.targets(summary, sizes).map((goal) => ({ section: section.name, ...goal }));
  });
}

/** The lines printed at the end of a run. */
export function summaryLines(results: Results): string[] {
  const lines = [`chaos ${results.mode} campaign, seed ${results.seed}: ${results.ok ? 'all targets met' : 'TARGETS MISSED'} in ${(results.durationMs / 1000).toFixed(0)} s`];
  for (const { section, summary } of present(results.sections)) {
    const missed = results.targets.filter((target) => target.section === section.name && !target.met).length;
    lines.push(...section.lines(summary, missed));
    // The lanes' document check follows the kill lanes, which keep most of what it searched.
    if (section.name === 'kill') lines.push(...laneDocumentLines(results));
  }
  if (!results.sections.kill) lines.splice(1, 0, ...laneDocumentLines(results));
  for (const target of results.targets.filter((t) => !t.met)) lines.push(`  MISSED ${target.section}: ${target.name} (${target.detail})`);
  for (const error of results.errors) lines.push(`  ERROR ${error}`);
  return lines;
}

function laneDocumentLines({ laneDocuments: docs }: Results): string[] {
  if (!docs) return [];
  return [`  lane document sentinel: ${docs.sightings} sightings in ${docs.corpora.length} corpora (${docs.corpora.reduce((sum, c) => sum + c.bytes, 0)} bytes)`];
}
