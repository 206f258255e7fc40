// Reads what the boundary rules need from disk: a project's checked files and the workspace manifests.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isCheckedFile, type Manifest, type Project } from './check.js';

export interface LoadedProject extends Project {
  /** Absolute directory holding the project's package.json. */
  dir: string;
}

export interface LoadedWorkspace {
  /** Absolute directory of the root package.json with `workspaces`. */
  dir: string;
  root: Manifest;
  /** Every workspace package.json, paths relative to the workspace root. */
  manifests: Manifest[];
  /** Absolute directories of the workspace packages. */
  packageDirs: string[];
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.git', '.nx']);

function readJson(path: string): Record<string, unknown> {
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${path} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** The directory of the nearest package.json at or above `start`. */
export function findProjectDir(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The nearest package.json at or above `start` that declares `workspaces`. */
export function findWorkspaceDir(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && Array.isArray(readJson(manifest)['workspaces'])) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function walk(dir: string, base: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(join(dir, entry.name), base, out);
    } else if (entry.isFile()) {
      const rel = relative(base, join(dir, entry.name)).split(sep).join('/');
      if (isCheckedFile(rel)) out.push(rel);
    }
  }
}

/** The project whose package.json is nearest to `start`, with every file the rules apply to. */
export function loadProject(start: string): LoadedProject {
  const dir = findProjectDir(start);
  if (!dir) throw new Error(`no package.json at or above ${resolve(start)}`);
  const name = readJson(join(dir, 'package.json'))['name'];
  if (typeof name !== 'string' || name === '') throw new Error(`${join(dir, 'package.json')} has no name`);
  const paths: string[] = [];
  if (existsSync(join(dir, 'src')) && statSync(join(dir, 'src')).isDirectory()) walk(join(dir, 'src'), dir, paths);
  if (existsSync(join(dir, 'build.ts'))) paths.push('build.ts');
  paths.sort();
  return { dir, name, files: paths.map((path) => ({ path, text: readFileSync(join(dir, path), 'utf8') })) };
}

/** Expands npm `workspaces` entries of the forms `dir` and `dir/*`. */
function expandWorkspaces(root: string, patterns: readonly unknown[]): string[] {
  const dirs: string[] = [];
  for (const pattern of patterns) {
    if (typeof pattern !== 'string') throw new Error('workspaces entries must be strings');
    if (pattern.endsWith('/*') && !pattern.slice(0, -2).includes('*')) {
      const parent = join(root, pattern.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const entry of readdirSync(parent, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (entry.isDirectory() && existsSync(join(parent, entry.name, 'package.json'))) dirs.push(join(parent, entry.name));
      }
    } else if (!pattern.includes('*')) {
      if (existsSync(join(root, pattern, 'package.json'))) dirs.push(join(root, pattern));
    } else {
      throw new Error(`unsupported workspaces pattern ${JSON.stringify(pattern)}`);
    }
  }
  return dirs;
}

export function loadWorkspace(start: string): LoadedWorkspace | undefined {
  const dir = findWorkspaceDir(start);
  if (!dir) return undefined;
  const rootPath = join(dir, 'package.json');
  const rootText = readFileSync(rootPath, 'utf8');
  const packageDirs = expandWorkspaces(dir, readJson(rootPath)['workspaces'] as unknown[]);
  return {
    dir,
    root: { path: 'package.json', text: rootText },
    manifests: packageDirs.map((pkg) => ({
      path: relative(dir, join(pkg, 'package.json')).split(sep).join('/'),
      text: readFileSync(join(pkg, 'package.json'), 'utf8'),
    })),
    packageDirs,
  };
}
