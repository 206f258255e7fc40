// The release's version against its CHANGELOG: a release contract (docs/api/contract.json) that
// changed since the last dated release needs a version above that release's, and an entry naming
// its digest. docs/versioning.md says which level the change needs; this refuses a release that
// claims none.

export interface ChangelogSection {
  /** A version, or `Unreleased`. */
  title: string;
  /** The release date of a released version. */
  date?: string;
  text: string;
}

/** The `## [title] - date` sections of a Keep a Changelog file, in order. */
export function changelogSections(changelog: string): ChangelogSection[] {
  const heads = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?[ \t]*$/gm)];
  return heads.map((head, index) => ({
    title: head[1]!,
    ...(head[2] ? { date: head[2] } : {}),
    text: changelog.slice(head.index + head[0].length, heads[index + 1]?.index ?? changelog.length),
  }));
}

/** Negative, zero or positive as `a` is below, equal to or above `b` (major.minor.patch only). */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((version) => {
    const parts = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
    if (!parts) throw new Error(`"${version}" is not a release version (major.minor.patch)`);
    return parts.slice(1).map(Number);
  });
  for (let i = 0; i < 3; i += 1) if (x![i] !== y![i]) return x![i]! - y![i]!;
  return 0;
}

/** What stops `version` from being released with the contract `digest`: empty when nothing does. */
export function releaseGate(changelog: string, version: string, digest: string): string[] {
  const sections = changelogSections(changelog);
  const named = (section: ChangelogSection) => section.text.includes(`(contract ${digest})`);
  const released = sections.filter((section) => section.date !== undefined);
  const last = released[0];
  const own = sections.find((section) => section.title === version);
  const problems: string[] = [];
  if (!sections.some(named)) problems.push(`no CHANGELOG.md entry names the release contract: end the entry that describes the change with "(contract ${digest})"`);
  if (own?.date === undefined && !sections.some((section) => section.title === 'Unreleased'))
    problems.push(`CHANGELOG.md has neither a dated [${version}] section nor an [Unreleased] one for version ${version}`);
  if (!last) return problems;
  const order = compareVersions(version, last.title);
  if (order < 0) problems.push(`version ${version} is below the last release in CHANGELOG.md, ${last.title}`);
  // A released version's contract is the one its section, or an earlier one, names; any other is a change since.
  const unchanged = released.filter((section) => compareVersions(section.title, version) <= 0).some(named);
  if (order === 0 && !unchanged) problems.push(`the release contract changed since ${last.title} (contract ${digest}) while the version is still ${version}: bump it as docs/versioning.md says`);
  return problems;
}
