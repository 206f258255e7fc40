// Reads the workspace manifests from disk for the version check.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Manifest } from './versions.js';

export interface LoadedWorkspace {
  /** Absolute directory of the root package.json with `workspaces`. */
  dir: string;
  root: Manifest;
  /** Every workspace package.json, paths relative to the workspace root. */
  manifests: Manifest[];
  /** Absolute directories of the workspace packages. */
  packageDirs: string[];
}

function readJson(path: string): Record<string, unknown> {
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${path} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** The nearest package.json at or above `start` that declares `workspaces`. */
function findWorkspaceDir(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && Array.isArray(readJson(manifest)['workspaces'])) return dir;
    if (dirname(dir) === dir) return undefined;
  }
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
