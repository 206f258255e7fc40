// Boundary check of one project: `node --import tsx tools/boundaries/src/cli.ts <project-dir>`.
// Exits 0 when clean, 1 listing every violation as file:line, 2 when it cannot run.
import { join, relative, resolve } from 'node:path';
import { checkProject, checkWorkspaceVersions, formatViolation } from './check.js';
import { loadProject, loadWorkspace } from './collect.js';

function main(argv: readonly string[]): number {
  if (argv.length !== 1 || argv[0] === '--help' || argv[0] === '-h') {
    console.error('usage: node --import tsx tools/boundaries/src/cli.ts <project-dir>');
    return 2;
  }
  const cwd = process.cwd();
  const show = (absolute: string): string => relative(cwd, absolute) || '.';

  const project = loadProject(resolve(argv[0] ?? '.'));
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
