// Project boundary rules as pure functions over file names and contents: which module a file may
// import, that no project reaches into another's internals, and one version across the workspace.
import { isBuiltin } from 'node:module';
import { posix } from 'node:path';
import ts from 'typescript';

export const SCOPE = '@occ-ssh/';
export const HOST_HELPER = '@occ-ssh/host-helper';
export const CONTROLLER = '@occ-ssh/controller';
export const LIBRARIES: readonly string[] = ['@occ-ssh/protocol', '@occ-ssh/markers'];
export const APPS: readonly string[] = [CONTROLLER, HOST_HELPER];
/** The projects under tools/: test hosts, test support, chaos, benchmarks. Product sources never import them. */
export const TOOLS: readonly string[] = [
  '@occ-ssh/testhost',
  '@occ-ssh/test-support',
  '@occ-ssh/occ-fixtures',
  '@occ-ssh/netguard',
  '@occ-ssh/chaos',
  '@occ-ssh/bench',
  '@occ-ssh/demo',
  '@occ-ssh/boundaries',
];
/** What tests of the product may import from tools. */
export const TEST_SUPPORT: readonly string[] = ['@occ-ssh/testhost', '@occ-ssh/test-support'];

/** What the host helper bundle may contain besides Node built-ins and its own sources. */
export const HELPER_PACKAGES: readonly string[] = ['@occ-ssh/protocol', '@occ-ssh/markers', 'zod/mini'];
export const HELPER_BUILD_PACKAGES: readonly string[] = ['esbuild'];
export const HELPER_TEST_PACKAGES: readonly string[] = [...TEST_SUPPORT, 'node:test'];

/** Built-ins that do I/O; libraries stay pure (their tests may use them). Compared without `node:`. */
export const IO_MODULES: readonly string[] = [
  'fs',
  'fs/promises',
  'child_process',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'dns',
  'dns/promises',
  'tls',
  'worker_threads',
  'cluster',
];

export type RuleId =
  | 'deep-import'
  | 'escapes-project'
  | 'helper-allowlist'
  | 'helper-outside-src'
  | 'library-imports-app'
  | 'library-imports-tools'
  | 'app-imports-tools'
  | 'source-imports-test'
  | 'library-io'
  | 'non-literal-specifier'
  | 'workspace-version'
  | 'workspace-dependency'
  | 'manifest';

export interface SourceFile {
  /** Relative to the project directory, with `/` separators: `src/index.ts`, `build.ts`. */
  path: string;
  text: string;
}

export interface Project {
  /** The `name` of the project's package.json. */
  name: string;
  files: readonly SourceFile[];
}

export interface Violation {
  file: string;
  line: number;
  rule: RuleId;
  message: string;
  specifier?: string;
}

export type ReferenceKind = 'import' | 'export' | 'import-equals' | 'dynamic-import' | 'require' | 'import-type';

export interface ModuleReference {
  kind: ReferenceKind;
  /** Undefined when the argument of `import()`/`require()` is not a string literal. */
  specifier: string | undefined;
  line: number;
}

const SOURCE_EXTENSIONS = ['.ts', '.mts', '.cts'];

/** The files the rules apply to: every TypeScript file under `src/`, and `build.ts` at the project root. */
export function isCheckedFile(path: string): boolean {
  const normalized = normalizePath(path);
  if (normalized === 'build.ts') return true;
  return normalized.startsWith('src/') && SOURCE_EXTENSIONS.some((ext) => normalized.endsWith(ext));
}

export function isTestFile(path: string): boolean {
  return /\.test\.[mc]?ts$/.test(path);
}

/** Every static and dynamic module reference of one file, with the line of its specifier. */
export function moduleReferences(path: string, text: string): ModuleReference[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: ModuleReference[] = [];
  const lineOf = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const literal = (node: ts.Node | undefined): string | undefined =>
    node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      found.push({ kind: 'import', specifier: literal(node.moduleSpecifier), line: lineOf(node.moduleSpecifier) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      found.push({ kind: 'export', specifier: literal(node.moduleSpecifier), line: lineOf(node.moduleSpecifier) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      found.push({ kind: 'import-equals', specifier: literal(expression), line: lineOf(expression) });
    } else if (ts.isCallExpression(node)) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isImport || isRequire) {
        const argument = node.arguments[0];
        found.push({
          kind: isImport ? 'dynamic-import' : 'require',
          specifier: literal(argument),
          line: lineOf(argument ?? node),
        });
      }
    } else if (ts.isImportTypeNode(node)) {
      const argument = ts.isLiteralTypeNode(node.argument) ? node.argument.literal : undefined;
      found.push({ kind: 'import-type', specifier: literal(argument), line: lineOf(node.argument) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function normalizePath(path: string): string {
  return posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\//, '');
}

function isRelative(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

function isAbsolute(specifier: string): boolean {
  return specifier.startsWith('/') || specifier.startsWith('file:') || /^[A-Za-z]:[\\/]/.test(specifier);
}

export function isBuiltinSpecifier(specifier: string): boolean {
  return specifier.startsWith('node:') || isBuiltin(specifier);
}

/** `@scope/name` or `name` of a bare specifier, and the subpath after it (empty for the root). */
export function packageOf(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const count = specifier.startsWith('@') ? 2 : 1;
  return { name: parts.slice(0, count).join('/'), subpath: parts.slice(count).join('/') };
}

/** Where a relative specifier lands, relative to the project directory. */
function resolveRelative(fromFile: string, specifier: string): string {
  return posix.normalize(posix.join(posix.dirname(fromFile), specifier));
}

function escapes(resolved: string): boolean {
  return resolved === '..' || resolved.startsWith('../');
}

/** All violations of one project's files. Files outside `src/` (other than `build.ts`) are ignored. */
export function checkProject(project: Project): Violation[] {
  const violations: Violation[] = [];
  const isLibrary = LIBRARIES.includes(project.name);
  const isHelper = project.name === HOST_HELPER;
  const isApp = APPS.includes(project.name);

  for (const file of project.files) {
    const path = normalizePath(file.path);
    if (!isCheckedFile(path)) continue;
    const test = isTestFile(path);
    const build = path === 'build.ts';
    const add = (line: number, rule: RuleId, message: string, specifier?: string): void => {
      violations.push({ file: path, line, rule, message, ...(specifier === undefined ? {} : { specifier }) });
    };

    for (const reference of moduleReferences(path, file.text)) {
      const { specifier, line } = reference;
      if (specifier === undefined) {
        // Only where imports are restricted does an unanalysable specifier matter.
        if ((isLibrary || isHelper) && !test) {
          add(line, 'non-literal-specifier', `${reference.kind} with a computed specifier cannot be checked; use a string literal`);
        }
        continue;
      }

      // Every project: no reaching into another project's files.
      if (isAbsolute(specifier)) {
        add(line, 'escapes-project', `absolute module path '${specifier}' leaves the project; import the package instead`, specifier);
        continue;
      }
      if (isRelative(specifier)) {
        const resolved = resolveRelative(path, specifier);
        if (escapes(resolved)) {
          add(line, 'escapes-project', `'${specifier}' climbs out of the project directory; import the package's public entry instead`, specifier);
        } else if (!test && !build && resolved.startsWith('test/')) {
          add(line, 'source-imports-test', `'${specifier}' is test support; sources outside tests must not import it`, specifier);
        } else if (isHelper && !(resolved === 'src' || resolved.startsWith('src/'))) {
          add(line, 'helper-outside-src', `'${specifier}' resolves outside the helper's src/ and would not be bundled`, specifier);
        }
        continue;
      }
      const builtin = isBuiltinSpecifier(specifier);
      const pkg = builtin ? undefined : packageOf(specifier);
      if (pkg && pkg.name.startsWith(SCOPE) && pkg.subpath !== '') {
        add(line, 'deep-import', `'${specifier}' reaches into ${pkg.name}'s internals; import '${pkg.name}' itself`, specifier);
      }

      if (isLibrary) {
        if (pkg && APPS.includes(pkg.name)) {
          add(line, 'library-imports-app', `library ${project.name} must not import the application ${pkg.name}`, specifier);
        }
        if (!test && pkg && TOOLS.includes(pkg.name)) {
          add(line, 'library-imports-tools', `library ${project.name} must not import ${pkg.name}`, specifier);
        }
        if (!test && builtin && IO_MODULES.includes(specifier.replace(/^node:/, ''))) {
          add(line, 'library-io', `library ${project.name} does no I/O: '${specifier}' is not allowed outside tests`, specifier);
        }
      }

      // The helper has its own, stricter allowlist below.
      if (isApp && !isHelper && !test && pkg && TOOLS.includes(pkg.name)) {
        add(line, 'app-imports-tools', `application ${project.name} must not import ${pkg.name} outside tests`, specifier);
      }

      if (isHelper && !builtin && pkg) {
        const allowed = [...HELPER_PACKAGES, ...(build ? HELPER_BUILD_PACKAGES : []), ...(test ? HELPER_TEST_PACKAGES : [])];
        // A deep import of an allowed workspace package is already reported as deep-import.
        const deepOfAllowed = pkg.subpath !== '' && pkg.name.startsWith(SCOPE) && allowed.includes(pkg.name);
        if (!allowed.includes(specifier) && !deepOfAllowed) {
          add(line, 'helper-allowlist', `${HOST_HELPER} ${build ? 'build script' : test ? 'tests' : 'sources'} may import only ${allowed.join(', ')}, Node built-ins and its own src/: not '${specifier}'`, specifier);
        }
      }
    }
  }
  return violations.sort(compareViolations);
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
