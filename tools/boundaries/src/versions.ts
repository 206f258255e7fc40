// One version across the workspace: every package.json carries the root's version, and every
// dependency on a workspace package names exactly it, so npm never asks a registry for an
// @occ-ssh name. (The import rules live in .dependency-cruiser.cjs.)

const SCOPE = '@occ-ssh/';

export type RuleId = 'workspace-version' | 'workspace-dependency' | 'manifest';

export interface Violation {
  file: string;
  line: number;
  rule: RuleId;
  message: string;
}

export interface Manifest {
  /** As it should be shown in a report, e.g. `libs/markers/package.json`. */
  path: string;
  text: string;
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

/**
 * One workspace version: every workspace package.json `version` equals the root's, and every
 * dependency on a workspace package names exactly that version.
 */
export function checkWorkspaceVersions(root: Manifest, workspaces: readonly Manifest[]): Violation[] {
  const violations: Violation[] = [];
  const rootJson = parseManifest(root, violations);
  if (!rootJson) return violations;
  const version = rootJson['version'];
  if (typeof version !== 'string' || version === '') {
    violations.push({ file: root.path, line: lineOfKey(root.text, 'version'), rule: 'manifest', message: 'the root package.json has no version' });
    return violations;
  }
  for (const manifest of workspaces) {
    const json = parseManifest(manifest, violations);
    if (!json) continue;
    const name = typeof json['name'] === 'string' ? json['name'] : manifest.path;
    if (json['version'] !== version) {
      violations.push({
        file: manifest.path,
        line: lineOfKey(manifest.text, 'version'),
        rule: 'workspace-version',
        message: `${name} has version ${JSON.stringify(json['version'] ?? null)}; every workspace package uses the root version ${version}`,
      });
    }
    for (const field of DEPENDENCY_FIELDS) {
      const deps = json[field];
      if (deps === null || typeof deps !== 'object') continue;
      for (const [dep, range] of Object.entries(deps as Record<string, unknown>)) {
        if (!dep.startsWith(SCOPE) || range === version) continue;
        violations.push({
          file: manifest.path,
          line: lineOfKey(manifest.text, dep),
          rule: 'workspace-dependency',
          message: `${name} ${field} ${dep}@${JSON.stringify(range)}; workspace packages depend on each other at exactly ${version}`,
        });
      }
    }
  }
  return violations.sort(compareViolations);
}

function parseManifest(manifest: Manifest, violations: Violation[]): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(manifest.text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  violations.push({ file: manifest.path, line: 1, rule: 'manifest', message: 'package.json is not a JSON object' });
  return undefined;
}

/** 1-based line of the first `"key":` in a JSON text, or 1. */
function lineOfKey(text: string, key: string): number {
  const needle = new RegExp(`^\\s*${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s*:`);
  const index = text.split('\n').findIndex((line) => needle.test(line));
  return index === -1 ? 1 : index + 1;
}

function compareViolations(a: Violation, b: Violation): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}

export function formatViolation(violation: Violation, displayPath: string = violation.file): string {
  return `${displayPath}:${violation.line}: ${violation.rule}: ${violation.message}`;
}
