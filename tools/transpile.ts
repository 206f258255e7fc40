// Transpiles a library's sources (not tests) to ESM JavaScript under dist/, one file per module.
import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { build } from 'esbuild';

const project = process.cwd();
const workspace = join(project, relative(project, new URL('../', import.meta.url).pathname));
const outdir = join(workspace, 'dist', relative(workspace, project));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const entryPoints = sources(join(project, 'src'));
await build({ entryPoints, outdir, outbase: join(project, 'src'), format: 'esm', platform: 'node', target: 'node22', logLevel: 'warning' });
console.log(`${basename(project)}: ${entryPoints.length} modules -> ${relative(workspace, outdir)}`);
