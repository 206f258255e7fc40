// hostile: hostile host state (squatted paths, planted links, foreign owners) refused or not followed.
import type { HostileResult } from './case.js';
import { runHostile } from './run-hostile.js';
import { seconds, type Section } from '../campaign/section.js';

export interface HostileSummary {
  cases: number;
  refused: number;
  unchanged: number;
  targetsUnchanged: number;
  notFollowed: number;
  results: HostileResult[];
  durationMs: number;
}

export const hostile: Section<'hostile', 'hostile', HostileSummary> = {
  name: 'hostile',
  key: 'hostile',
  lanes: () => [{ host: 'h', order: 0 }],
  run({ sizes, progress }) {
    let summary: HostileSummary | undefined;
    return {
      async part(_index, link) {
        const t0 = Date.now();
        const found = await runHostile(link, progress, { coreOnly: sizes.hostileCoreOnly });
        const refusing = found.filter((result) => result.kind === 'refused');
        summary = {
          cases: found.length,
          refused: refusing.filter((result) => result.refused).length,
          unchanged: refusing.filter((result) => result.unchanged).length,
          targetsUnchanged: found.filter((result) => result.targetsUnchanged).length,
          notFollowed: found.filter((result) => result.kind === 'not-followed' && result.problems.length === 0).length,
          results: found,
          durationMs: Date.now() - t0,
        };
      },
      summarize: () => summary,
    };
  },
  targets(hostile) {
    const refusing = hostile.results.filter((result) => result.kind === 'refused');
    const goals = [
      {
        name: '100% refused with ownership, nothing adopted or written',
        met: refusing.length > 0 && refusing.every((result) => result.refused && result.unchanged && result.problems.length === 0),
        detail: `${hostile.refused}/${refusing.length} refused, ${hostile.unchanged}/${refusing.length} unchanged`,
      },
    ];
    const squatted = hostile.results.filter((result) => result.kind === 'not-served');
    if (squatted.length > 0) {
      const notServed = squatted.filter((result) => result.refused && result.problems.length === 0).length;
      goals.push({ name: "a squatter on an Agent's port is never taken for its gateway", met: notServed === squatted.length, detail: `${notServed}/${squatted.length} not served` });
    }
    goals.push({
      name: 'links planted by an Agent are never followed',
      met: hostile.results.every((result) => result.targetsUnchanged) && hostile.results.filter((result) => result.kind === 'not-followed').every((result) => result.problems.length === 0),
      detail: `${hostile.targetsUnchanged}/${hostile.cases} link targets unchanged`,
    });
    return goals;
  },
  counts: (h) => ({ trials: h.cases, refused: h.refused, unchanged: h.unchanged + h.notFollowed, violations: h.cases - h.targetsUnchanged }),
  lines: (h) => [`  hostile (hostile host state): ${h.cases} cases, ${h.refused} refused, ${h.unchanged} unchanged, ${h.notFollowed} planted-link cases not followed [${seconds(h.durationMs)}]`],
};
