// Workspace version check: `node --import tsx tools/boundaries/src/cli.ts [dir]` from inside the
// workspace. Exits 0 when every package carries the root version, 1 listing each mismatch as
// file:line, 2 when it cannot run.
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadWorkspace } from './collect.js';
import { checkWorkspaceVersions, formatViolation } from './versions.js';

const USAGE = 'usage: node --import tsx tools/boundaries/src/cli.ts [dir inside the workspace]';

function main(argv: readonly string[]): number {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], strict: true, allowPositionals: true, options: { help: { type: 'boolean', short: 'h', default: false } } });
  } catch {
    console.error(USAGE);
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length > 1) {
    console.error(USAGE);
    return 2;
  }
  const start = resolve(parsed.positionals[0] ?? '.');
  const workspace = loadWorkspace(start);
  if (!workspace) {
    console.error(`versions: no workspace root at or above ${start}`);
    return 2;
  }
  const show = (file: string): string => relative(process.cwd(), resolve(workspace.dir, file)) || '.';
  const lines = checkWorkspaceVersions(workspace.root, workspace.manifests).map((v) => formatViolation(v, show(v.file)));
  if (lines.length > 0) {
    for (const line of lines) console.error(line);
    console.error(`versions: ${lines.length} violation${lines.length === 1 ? '' : 's'}`);
    return 1;
  }
  const version = (JSON.parse(workspace.root.text) as { version?: string }).version;
  console.log(`versions: ${workspace.manifests.length} workspace packages at ${version}`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`versions: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
