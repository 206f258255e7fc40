// Boundary check of one project: `node --import tsx tools/boundaries/src/cli.ts <project-dir>`.
// Exits 0 when clean, 1 listing every violation as file:line, 2 when it cannot run.
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkProject, checkWorkspaceVersions, formatViolation } from './check.js';
import { loadProject, loadWorkspace } from './collect.js';

const USAGE = 'usage: node --import tsx tools/boundaries/src/cli.ts <project-dir>';

function main(argv: readonly string[]): number {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], strict: true, allowPositionals: true, options: { help: { type: 'boolean', short: 'h', default: false } } });
  } catch {
    console.error(USAGE);
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  const [dir] = parsed.positionals;
  const cwd = process.cwd();
  const show = (absolute: string): string => relative(cwd, absolute) || '.';

  const project = loadProject(resolve(dir ?? '.'));
  const lines = checkProject(project).map((v) => formatViolation(v, show(join(project.dir, v.file))));

  const workspace = loadWorkspace(project.dir);
  if (workspace) {
    const versions = checkWorkspaceVersions(workspace.root, workspace.manifests);
    lines.push(...versions.map((v) => formatViolation(v, show(join(workspace.dir, v.file)))));
  } else {
    console.error(`boundaries: ${project.name}: no workspace root above ${show(project.dir)}; workspace version check skipped`);
  }

  if (lines.length > 0) {
    for (const line of lines) console.error(line);
    console.error(`boundaries: ${project.name}: ${lines.length} violation${lines.length === 1 ? '' : 's'}`);
    return 1;
  }
  console.log(`boundaries: ${project.name}: ${project.files.length} files clean`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`boundaries: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
